/**
 * One keep-alive connection carrying one request at a time (no pipelining). The request's bytes are
 * written in one go, and the send is stamped right then: the write is ours, so the stamp is exact and
 * connection setup is never counted as service time. The answer is parsed as it arrives; a close
 * before it is whole is a reset (on a connection that sat idle, before any byte of it and soon after our write,
 * a stale connection: see stale-rule.ts and StaleConnectionError), and anything unexpected ends the connection
 * (it is never reused).
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, TLSSocket } from 'node:tls';

import { ResponseParser } from './parser.js';
import { type PeerCertificate, watchPeerCertificate, withPeer } from './peer-certificate.js';
import type { HttpProxy } from './proxy-env.js';
import { StaleConnectionError } from './request-errors.js';
import { type Http1Response, PrematureCloseError } from './response.js';
import { couldBeIdleClose } from './stale-rule.js';
import { openTunnel, targetTls } from './tunnel.js';

/** Where to connect. */
export interface Origin {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** Extra TLS options (tests: a CA; a run: src/client/tls-trust.ts); certificates are verified, with SNI. */
  readonly tls?: { readonly ca?: string | Buffer; readonly secureContext?: SecureContext };
  /** The proxy to reach it through (a CONNECT tunnel: tunnel.ts), when the environment names one for it. */
  readonly proxy?: HttpProxy;
}

/** One request on the wire, as the pool tracks it. */
export interface Exchange {
  /** The whole request (head and body), already formatted. */
  readonly bytes: string | Uint8Array;
  /** Called when its bytes are handed to the socket. */
  readonly onSent: () => void;
  /** Settles it, once: with the response, or with why there is none. */
  done(error: Error | undefined, response: Http1Response | undefined): void;
}

/** The buffer plain-TCP connections read into (see the constructor). */
const READ_BUFFER = Buffer.alloc(64 * 1024);

export class Connection {
  /** The socket to the target; through a proxy, the one to the proxy until the tunnel is made. */
  private socket: Socket;
  private readonly parser: ResponseParser;
  private exchange: Exchange | undefined;
  /** Connected (and, for TLS, handshaken). */
  ready = false;
  /** Never to be used again: closed, failed, or told to close. */
  dead = false;
  /** Wall ms (performance.now()) when it last became free: connected, or its answer read. */
  freeSince = 0;
  /** The server's Keep-Alive timeout (ms), when its last answer gave one. */
  keepAliveMs: number | undefined = undefined;
  /** The exchange in flight was sent after the connection sat idle: the server may have closed it meanwhile. */
  private sentAfterIdle = false;
  /** How long (wall ms) it sat idle before the exchange in flight was written, and when that write was. */
  private idleBeforeSend = 0;
  private sentAt = 0;
  /** When it began to be made, then how long making it took (connect, handshake, tunnel): its own round trips. */
  private readonly startedAt = performance.now();
  private setupMs = 0;
  /** A byte of the exchange's answer has come. */
  private answerStarted = false;
  /** The exchange's write failed with no byte of it accepted: it never left. */
  private writeRefused = false;

  /**
   * @param onReady connected: the connection may carry a request (or failed to connect: `error`).
   * @param onFree the answer is read and the connection can carry the next request.
   * @param onGone it closed (or failed); it is dead.
   */
  constructor(
    origin: Origin,
    maxHeadBytes: number,
    maxAnswerBytes: number,
    private readonly onReady: (c: Connection, error: Error | undefined) => void,
    private readonly onFree: (c: Connection) => void,
    private readonly onGone: (c: Connection) => void,
  ) {
    this.parser = new ResponseParser(maxHeadBytes, maxAnswerBytes);
    const host = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
    if (origin.proxy !== undefined) {
      const tls = origin.protocol === 'https:' && targetTls(host, origin.tls);
      this.socket = openTunnel(origin.proxy, { host, port: origin.port, tls }, this.tunnelled);
      return;
    }
    if (origin.protocol === 'https:') {
      // Default verification of the server's certificate; SNI unless the host is an address.
      const tls = tlsConnect({ port: origin.port, ...targetTls(host, origin.tls) });
      this.peer = watchPeerCertificate(tls);
      this.socket = tls;
      this.socket.once('secureConnect', this.secured);
      this.socket.on('data', this.data);
    } else {
      // Reads land in one buffer shared by every connection and go straight to the parser, without a
      // stream's 'data' event and a new Buffer per read (about a sixth of a request's CPU at 1,000 req/s);
      // the parser copies what it keeps.
      this.socket = netConnect({
        host,
        port: origin.port,
        noDelay: true,
        onread: { buffer: READ_BUFFER, callback: (n) => this.read(n) },
      });
      this.socket.once('connect', this.connected);
    }
    // A request is one write, and waits for nothing after it: Nagle's algorithm would only delay it.
    this.socket.setNoDelay(true);
    this.listen(this.socket);
  }

  private listen(socket: Socket): void {
    socket.on('end', this.ended);
    socket.on('error', this.failed);
    socket.on('close', this.closed);
  }

  /** Through a proxy: the tunnel is made (TLS yet to handshake, for https), or failed and the connection is gone. */
  private readonly tunnelled = (error: Error | undefined, socket: Socket | undefined): void => {
    if (socket === undefined) {
      this.dead = true;
      this.settleConnect(error);
      this.onGone(this);
      return;
    }
    this.socket = socket;
    socket.on('data', this.data);
    this.listen(socket);
    if (socket instanceof TLSSocket) {
      this.peer = watchPeerCertificate(socket);
      socket.once('secureConnect', this.secured);
    } else this.connected();
  };

  /**
   * Writes the exchange's request now; it must be ready, alive and free. `fromIdle`: it sat idle in the pool. One
   * handed on the moment it was made, or the moment it answered, cannot have been closed for idleness: a close under
   * its request is the server's doing, a reset.
   */
  send(exchange: Exchange, fromIdle: boolean): void {
    this.exchange = exchange;
    this.sentAfterIdle = fromIdle;
    this.sentAt = performance.now();
    this.idleBeforeSend = fromIdle ? this.sentAt - this.freeSince : 0;
    this.answerStarted = false;
    this.writeRefused = false;
    let queued = -1;
    this.socket.write(exchange.bytes, (error) => {
      // Nothing was left queued after the write call, so its one system call took all or nothing: an error is nothing.
      if (error != null && queued === 0 && this.exchange === exchange) this.writeRefused = true;
    });
    queued = this.socket.writableLength;
    exchange.onSent();
  }

  /** Ends the exchange it carries with `error` and closes (a deadline, a cancel). */
  abort(error: Error): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.destroy();
    exchange?.done(error, undefined);
  }

  destroy(): void {
    this.dead = true;
    this.socket.destroy();
  }

  get busy(): boolean {
    return this.exchange !== undefined;
  }

  /** Tells the pool, once, whether the connection was made. */
  private settleConnect(error: Error | undefined): void {
    if (this.ready || this.connectSettled) return;
    this.connectSettled = true;
    this.ready = error === undefined;
    this.freeSince = performance.now();
    this.setupMs = this.freeSince - this.startedAt;
    this.onReady(this, error);
  }

  private connectSettled = false;

  private readonly connected = (): void => this.settleConnect(undefined);

  /** What a TLS server showed in its handshake, for the words of a failure. */
  private peer: () => PeerCertificate | undefined = () => undefined;

  /** Handshaken: the server agreed to HTTP/1.1, or named no protocol (HTTP/1.1 by default). */
  private readonly secured = (): void => {
    const agreed = (this.socket as TLSSocket).alpnProtocol;
    if (typeof agreed === 'string' && agreed !== 'http/1.1') {
      const error = new Error(`the server chose ALPN ${agreed.slice(0, 20)}; this client speaks HTTP/1.1 only`);
      this.failed(Object.assign(error, { code: 'LOADPROOF_NOT_HTTP1' }));
      this.socket.destroy();
      return;
    }
    this.settleConnect(undefined);
  };

  /** `n` bytes were read into READ_BUFFER; true: keep reading. */
  private read(n: number): boolean {
    this.data(READ_BUFFER.subarray(0, n));
    return true;
  }

  private readonly data = (chunk: Buffer): void => {
    const exchange = this.exchange;
    if (exchange === undefined) {
      // Bytes nobody asked for: this connection can no longer be trusted.
      this.destroy();
      return;
    }
    this.answerStarted = true;
    let response: Http1Response | undefined;
    try {
      response = this.parser.push(chunk);
    } catch (error) {
      this.abort(error as Error);
      return;
    }
    if (response === undefined) return;
    this.exchange = undefined;
    if (response.close) this.destroy();
    else {
      this.freeSince = performance.now();
      this.keepAliveMs = response.keepAliveMs;
    }
    exchange.done(undefined, response);
    if (!this.dead) this.onFree(this);
  };

  private readonly ended = (): void => {
    // The server finished its side: a body read to the close ends here; anything else in flight was cut short.
    const exchange = this.exchange;
    this.exchange = undefined;
    this.dead = true;
    if (exchange !== undefined) {
      try {
        const response = this.parser.end();
        if (response !== undefined) exchange.done(undefined, response);
        else exchange.done(this.cutShort(new PrematureCloseError()), undefined);
      } catch (error) {
        exchange.done(error as Error, undefined);
      }
    }
    this.socket.destroy();
  };

  private readonly failed = (error: Error): void => {
    withPeer(error, this.peer());
    const exchange = this.exchange;
    this.exchange = undefined;
    this.dead = true;
    if (!this.ready) this.settleConnect(error);
    else exchange?.done(this.cutShort(error), undefined);
  };

  private readonly closed = (): void => {
    this.dead = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    if (!this.ready)
      this.settleConnect(
        Object.assign(new Error('the connection closed before it was established'), { code: 'ECONNRESET' }),
      );
    else exchange?.done(this.cutShort(new PrematureCloseError()), undefined);
    this.onGone(this);
  };

  /**
   * Why the exchange in flight got no answer. After the connection sat idle, before any byte of one: stale when the
   * write itself was refused (the request never left), or when the close can be an idle close (stale-rule.ts);
   * otherwise the server closed it under a request it had: the service's reset.
   */
  private cutShort(error: Error): Error {
    if (!this.sentAfterIdle || this.answerStarted) return error;
    const cut = { idleMs: this.idleBeforeSend, sinceWriteMs: performance.now() - this.sentAt, setupMs: this.setupMs };
    return this.writeRefused || couldBeIdleClose(cut)
      ? new StaleConnectionError(this.writeRefused, error, cut.idleMs)
      : error;
  }
}
