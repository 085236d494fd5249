/**
 * Connections opened before the load (issue 11 §2): a run's first arrivals must not wait for TCP (and
 * TLS) handshakes that later arrivals do not, or the first seconds lag and drop. The sockets are only
 * connected — no request is sent on them until the load does — which is the safest warm-up for a real,
 * rate-limited service: it costs the service nothing it counts. undici's clients take their sockets
 * from {@link WarmConnections.connect}, which hands out the warm ones first, then connects as usual.
 */
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

/** The most connections opened ahead of the load: enough for the first second at loopback latencies, few for a real service. */
export const MAX_WARM_CONNECTIONS = 64;

export class WarmConnections {
  private readonly base = buildConnector({});
  private readonly origin: URL;
  private readonly idle: Socket[] = [];

  /** @param baseUrl the only origin whose connections are opened ahead (others connect as usual). */
  constructor(baseUrl: string) {
    this.origin = new URL(baseUrl);
  }

  /**
   * The connector to give undici (`new Agent({ connect })`). Once any connection it gave out closes, the
   * warm ones left are closed too and no longer given out: a server that closes one has likely closed
   * them all (restarted, or idle timeout), and a request written on a socket whose close is not yet read
   * would be lost without reaching any server. Our close listener runs before undici's, which reconnects.
   */
  readonly connect: buildConnector.connector = (options, callback) => {
    const sameOrigin = options.protocol === this.origin.protocol && options.hostname === this.origin.hostname && options.port === this.port();
    const socket = sameOrigin && !this.spoiled ? this.idle.pop() : undefined;
    if (socket !== undefined) {
      socket.removeListener('error', ignore);
      socket.removeListener('end', this.drop);
      socket.removeListener('close', this.drop);
      socket.removeListener('data', ignore);
      socket.pause();
      socket.once('close', this.spoil);
      // Later, as a real connect would: undici calls this from inside its dispatch loop, which
      // ignores a re-entrant resume, so a socket handed over at once would never carry its request.
      queueMicrotask(() => callback(null, socket));
      return;
    }
    this.base(options, (error, fresh) => {
      if (error === null) {
        fresh.once('close', this.spoil);
        callback(null, fresh);
      } else callback(error, null);
    });
  };

  private spoiled = false;

  private readonly spoil = (): void => {
    this.spoiled = true;
    this.close();
  };

  /** A warm socket the server closed (or that failed) before the load took it: never handed out. */
  private readonly drop = (): void => {
    for (let i = this.idle.length - 1; i >= 0; i--) {
      const socket = this.idle[i]!;
      if (socket.readableEnded || socket.destroyed) {
        this.idle.splice(i, 1);
        socket.destroy();
      }
    }
  };

  /**
   * Opens up to `count` connections to the origin and keeps them for the load; resolves with how many
   * are open (one that fails or takes longer than `timeoutMs` of wall time is left out).
   */
  async open(count: number, timeoutMs: number): Promise<number> {
    const options = { protocol: this.origin.protocol, hostname: this.origin.hostname, host: this.origin.host, port: this.port() };
    const one = (): Promise<Socket | undefined> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        this.base(options, (error, socket) => {
          clearTimeout(timer);
          if (error !== null) resolve(undefined);
          else resolve(socket);
        });
      });
    const sockets = await Promise.all(Array.from({ length: Math.max(0, count) }, one));
    for (const socket of sockets) {
      if (socket === undefined) continue;
      // Held without a request: a reset must not throw, and a server that closes it (its FIN is read,
      // any byte is discarded) takes it off the list; undici listens for itself once it takes the socket.
      socket.on('error', ignore);
      socket.on('data', ignore);
      socket.on('end', this.drop);
      socket.on('close', this.drop);
      this.idle.push(socket);
      this.spoiled = false;
    }
    return this.idle.length;
  }

  /** Warm connections open and not yet taken by the load. */
  get available(): number {
    return this.idle.length;
  }

  /** Closes the connections the load never took. */
  close(): void {
    for (const socket of this.idle.splice(0)) socket.destroy();
  }

  private port(): string {
    return this.origin.port !== '' ? this.origin.port : this.origin.protocol === 'https:' ? '443' : '80';
  }
}

const ignore = (): void => {};
