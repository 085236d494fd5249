/**
 * Keep-alive connections to one origin, each carrying one request at a time, with our own deadline per
 * request (one timer for all: see deadlines.ts) and a cancel of everything in flight. A request takes
 * an idle connection (the most recently used: it is the least likely to have been closed by the
 * server), else opens one, up to `maxConnections`, else waits its turn. Connections can be opened
 * before the load ({@link ConnectionPool.open}) so the first requests do not pay for handshakes.
 * HTTP/1.1 only: no HTTP/2, no pipelining; through an HTTP proxy's CONNECT tunnel when the origin names one.
 */
import { checkPermitted, type SendPermit } from '../../core/index.js';
import { Connection, type Origin } from './connection.js';
import { Deadlines } from './deadlines.js';
import { DEFAULT_IDLE_LIFETIME_MS, idleLifetimeMs, learnedIdleLimitMs } from './idle-lifetime.js';
import { Pending } from './pending.js';
import type { HttpProxy } from './proxy-env.js';
import { CancelledError, DeadlineError, type StaleConnectionError } from './request-errors.js';
import { DEFAULT_MAX_HEAD_BYTES, type Http1Response, MAX_ANSWER_BYTES } from './response.js';

/** What a pool for a URL may be given beyond its origin and size. */
export interface PoolExtras {
  /** TLS settings of an https origin (a private CA, for one). */
  readonly tls?: Origin['tls'];
  /** The largest answer body read, bytes (default MAX_ANSWER_BYTES). */
  readonly maxAnswerBytes?: number;
  /** The proxy the origin is reached through, when one applies. */
  readonly proxy?: HttpProxy;
  /** How long a connection may sit idle and still be used (ms; see idle-lifetime.ts). */
  readonly idleLifetimeMs?: number;
  /** The tool's own stalls so far (wall ms; src/core/stall-meter.ts): a stretchable deadline grows by them. */
  readonly stalledMs?: () => number;
}

/**
 * How long a request waits for its answer (wall ms), and, when it may be stretched, the most it may wait if the
 * tool itself is held up meanwhile (see deadlines.ts).
 */
export interface WallDeadline {
  readonly waitMs: number;
  readonly latestMs?: number;
}

interface PoolOptions {
  /** The guard's permit: a pool connects only where the guard allowed traffic to go. */
  readonly permit: SendPermit;
  readonly origin: Origin;
  /** The most connections open at once. */
  readonly maxConnections: number;
  /** The largest response head accepted, bytes. */
  readonly maxHeadBytes?: number;
  /** The largest answer body read, bytes (default MAX_ANSWER_BYTES; obfuscation's is larger). */
  readonly maxAnswerBytes?: number;
  /** How long a connection may sit idle and still be used (wall ms; default DEFAULT_IDLE_LIFETIME_MS). */
  readonly idleLifetimeMs?: number;
  /** The tool's own stalls so far (wall ms), by which a stretchable deadline grows. */
  readonly stalledMs?: () => number;
}

export class ConnectionPool {
  /**
   * The most connections being made at once for requests that wait. A backlog of overdue arrivals (after a
   * pause of the process, say) would otherwise open one connection each, all at once: on loopback that
   * storm cost both sides more than the answers that free a connection within a millisecond, and turned
   * a hiccup into seconds of lag. The pool still grows to what the load needs, a few at a time:
   * at the documented rates (300 rpm, answers of up to 15 s: about 75 in flight) it never has 16 to make at
   * once; a request that waits for a connection shows as send lag, which the verdict holds against the
   * generator, never against the service.
   */
  static readonly MAX_CONNECTING = 16;

  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: Pending[] = [];
  private waitingHead = 0;
  private readonly deadlines: Deadlines;
  /** Connections being opened ahead of the load, and what to tell when each is made or failed. */
  private readonly warming = new Map<Connection, () => void>();
  private readonly maxHeadBytes: number;
  private readonly idleLifetimeMs: number;
  /** The idle lifetime learned from the server's closes of idle connections (learnedIdleLimitMs). */
  private learnedIdleMs = Infinity;
  private closed = false;
  /** Connections being made (not yet ready or failed). */
  private connecting = 0;
  /** Connections opened so far (warm ones included). */
  opened = 0;

  constructor(private readonly options: PoolOptions) {
    const { protocol, hostname, port } = options.origin;
    checkPermitted(
      options.permit,
      `${protocol}//${hostname.includes(':') && !hostname.startsWith('[') ? `[${hostname}]` : hostname}:${port}/`,
    );
    this.maxHeadBytes = options.maxHeadBytes ?? DEFAULT_MAX_HEAD_BYTES;
    this.idleLifetimeMs = options.idleLifetimeMs ?? DEFAULT_IDLE_LIFETIME_MS;
    this.deadlines = new Deadlines(options.stalledMs);
  }

  /**
   * A pool for the origin of `baseUrl` (http: or https:), reached through `proxy` when given: the permit is still
   * the origin's, the proxy being a hop, not a destination.
   */
  static forUrl(permit: SendPermit, baseUrl: string, maxConnections: number, extras: PoolExtras = {}): ConnectionPool {
    const { tls, maxAnswerBytes, proxy, idleLifetimeMs, stalledMs } = extras;
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return new ConnectionPool({
      permit,
      origin: {
        protocol: url.protocol,
        hostname: url.hostname,
        port,
        ...(tls === undefined ? {} : { tls }),
        ...(proxy === undefined ? {} : { proxy }),
      },
      maxConnections,
      ...(maxAnswerBytes === undefined ? {} : { maxAnswerBytes }),
      ...(idleLifetimeMs === undefined ? {} : { idleLifetimeMs }),
      ...(stalledMs === undefined ? {} : { stalledMs }),
    });
  }

  /**
   * Sends `bytes` (a whole request) and calls back with the whole response, or with why there is none:
   * a DeadlineError after `deadline` (wall ms, or a stretchable WallDeadline), a CancelledError, a parse error,
   * or the socket's error.
   * `onSent` is called when the bytes are handed to the socket (never, if they never are). `fresh`: not on a
   * connection that sat idle (a request sent again after a stale one): on a new one (the stale one's close makes
   * room for it), or one that just answered.
   */
  request(
    bytes: string | Uint8Array,
    deadline: number | WallDeadline,
    onSent: () => void,
    callback: (error: Error | undefined, response: Http1Response | undefined) => void,
    fresh = false,
  ): void {
    const now = performance.now();
    const waitMs = typeof deadline === 'number' ? deadline : deadline.waitMs;
    const latestMs = typeof deadline === 'number' ? undefined : deadline.latestMs;
    const latestAt = latestMs === undefined ? undefined : now + latestMs;
    const pending = new Pending(bytes, now + waitMs, latestAt, onSent, callback, this);
    if (this.closed) return pending.done(new CancelledError(), undefined);
    this.deadlines.add(pending);
    const connection = fresh ? undefined : this.takeIdle();
    if (connection !== undefined) return this.sendOn(connection, pending, true);
    this.waiting.push(pending);
    this.connectForWaiting();
  }

  /** Ends every request not yet answered with a CancelledError. */
  cancelAll(): void {
    for (const entry of this.deadlines.pending()) this.fail(entry as Pending, new CancelledError());
  }

  /**
   * Opens up to `count` connections ahead of the load (no request on them); resolves with how many are
   * open and idle. One that fails, or is not made within `timeoutMs` of wall time, is left out.
   */
  async open(count: number, timeoutMs: number): Promise<number> {
    const want = Math.min(count, this.options.maxConnections - this.all.size);
    await Promise.all(
      Array.from({ length: Math.max(0, want) }, () => {
        const connection = this.connect();
        return new Promise<void>((resolve) => {
          const timer = setTimeout(() => connection.destroy(), timeoutMs);
          this.warming.set(connection, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }),
    );
    return this.idle.length;
  }

  /** The proxy the origin is reached through, if any. */
  get proxy(): HttpProxy | undefined {
    return this.options.origin.proxy;
  }

  /** Connections being made now. */
  get connectingNow(): number {
    return this.connecting;
  }

  /** Idle connections open now. */
  get available(): number {
    return this.idle.length;
  }

  /** Closes every connection; requests in flight or waiting end with a CancelledError. */
  close(): void {
    this.closed = true;
    this.cancelAll();
    this.deadlines.clear();
    for (const connection of this.all) connection.destroy();
    this.idle.length = 0;
  }

  sawStale(error: StaleConnectionError): void {
    // Whether the write was refused or crossed the close, the server closed a connection idle for about idleMs.
    this.learnedIdleMs = Math.min(this.learnedIdleMs, learnedIdleLimitMs(error.idleMs));
  }

  /**
   * Ends `pending` with `error`: off its connection (which is closed: its answer may still come) or out of the queue.
   */
  fail(pending: Pending, error: Error): void {
    if (pending.connection !== undefined) pending.connection.abort(error);
    else pending.done(error, undefined); // still waiting: skipped when its turn comes
  }

  private takeIdle(): Connection | undefined {
    const now = performance.now();
    for (let c = this.idle.pop(); c !== undefined; c = this.idle.pop()) {
      const lifetimeMs = Math.min(idleLifetimeMs(this.idleLifetimeMs, c.keepAliveMs), this.learnedIdleMs);
      if (!c.dead && now - c.freeSince < lifetimeMs) return c;
      c.destroy();
    }
    return undefined;
  }

  /** `fromIdle`: the connection sat idle in the pool (else it was just made, or just answered). */
  private sendOn(connection: Connection, pending: Pending, fromIdle: boolean): void {
    pending.connection = connection;
    connection.send(pending, fromIdle);
  }

  /** Opens a connection when more requests wait than connections are being made, if there is room. */
  private connectForWaiting(): void {
    if (
      this.closed ||
      this.connecting >= ConnectionPool.MAX_CONNECTING ||
      this.waiting.length - this.waitingHead <= this.connecting ||
      this.all.size >= this.options.maxConnections
    )
      return;
    this.connect();
  }

  private connect(): Connection {
    this.opened++;
    this.connecting++;
    const connection = new Connection(
      this.options.origin,
      this.maxHeadBytes,
      this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
      this.onReady,
      this.onFree,
      this.onGone,
    );
    this.all.add(connection);
    return connection;
  }

  /**
   * The next request waiting that is not settled yet (a deadline or a cancel may have ended it there).
   * One whose deadline has passed is ended here, never sent: its expiry may still be on its way (the
   * deadline sweep declares expiries after the turn's socket reads), and the target must not spend a
   * token and a service slot on a request the client already counts as a timeout.
   */
  private nextWaiting(): Pending | undefined {
    const now = performance.now();
    while (this.waitingHead < this.waiting.length) {
      const pending = this.waiting[this.waitingHead++]!;
      if (pending.settled) continue;
      if (pending.deadlineAt <= now) pending.done(new DeadlineError(), undefined);
      else return pending;
    }
    this.waiting.length = 0;
    this.waitingHead = 0;
    return undefined;
  }

  private readonly onReady = (connection: Connection, error: Error | undefined): void => {
    this.connecting--;
    const warmed = this.warming.get(connection);
    if (warmed !== undefined) {
      this.warming.delete(connection);
      warmed();
      if (error === undefined) this.onFree(connection);
    } else if (error !== undefined) {
      // Could not connect: the request that asked for this connection fails with the reason.
      this.nextWaiting()?.done(error, undefined);
    } else this.onFree(connection);
    // Room for another connection being made: requests may still be waiting for one.
    this.connectForWaiting();
  };

  private readonly onFree = (connection: Connection): void => {
    const pending = this.nextWaiting();
    if (pending !== undefined) this.sendOn(connection, pending, false);
    else this.idle.push(connection);
  };

  private readonly onGone = (connection: Connection): void => {
    this.all.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    // Requests still waiting, and room for a connection: open one for them.
    this.connectForWaiting();
  };
}
