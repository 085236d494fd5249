/**
 * One keep-alive connection carrying one request at a time (no pipelining). The request's bytes are
 * written in one go, and the send is stamped right then: the write is ours, so the stamp is exact and
 * connection setup is never counted as service time. The answer is parsed as it arrives; a close
 * before it is whole is a reset, and anything unexpected ends the connection (it is never reused).
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext, type TLSSocket } from 'node:tls';

import { ResponseParser } from './parser.js';
import { type PeerCertificate, watchPeerCertificate, withPeer } from './peer-certificate.js';
import { type Http1Response, PrematureCloseError } from './response.js';

/** Where to connect. */
export interface Origin {
  readonly protocol: 'http:' | 'https:';
  readonly hostname: string;
  readonly port: number;
  /** Extra TLS options (tests: a CA; a run: src/client/tls-trust.ts); certificates are verified, with SNI. */
  readonly tls?: { readonly ca?: string | Buffer; readonly secureContext?: SecureContext };
}

/** One request on the wire, as the pool tracks it. */
export interface Exchange {
  /** The whole request (head and body), already formatted. */
  readonly bytes: string;
  /** Called when its bytes are handed to the socket. */
  readonly onSent: () => void;
  /** Settles it, once: with the response, or with why there is none. */
  done(error: Error | undefined, response: Http1Response | undefined): void;
}

/** The buffer plain-TCP connections read into (see the constructor). */
const READ_BUFFER = Buffer.alloc(64 * 1024);

export class Connection {
  readonly socket: Socket;
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
    if (origin.protocol === 'https:') {
      // Default verification of the server's certificate; SNI unless the host is an address.
      const tls = tlsConnect({
        host,
        port: origin.port,
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ALPNProtocols: ['http/1.1'],
        ...origin.tls,
      });
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
    this.socket.on('end', this.ended);
    this.socket.on('error', this.failed);
    this.socket.on('close', this.closed);
  }

  /** Writes the exchange's request now; it must be ready, alive and free. */
  send(exchange: Exchange): void {
    this.exchange = exchange;
    this.socket.write(exchange.bytes);
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
        else exchange.done(new PrematureCloseError(), undefined);
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
    else exchange?.done(error, undefined);
  };

  private readonly closed = (): void => {
    this.dead = true;
    const exchange = this.exchange;
    this.exchange = undefined;
    if (!this.ready)
      this.settleConnect(
        Object.assign(new Error('the connection closed before it was established'), { code: 'ECONNRESET' }),
      );
    else exchange?.done(new PrematureCloseError(), undefined);
    this.onGone(this);
  };
}
