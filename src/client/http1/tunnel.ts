/**
 * A connection to a target through an HTTP proxy: `CONNECT host:port` (RFC 9110 §9.3.6), with the proxy's
 * credentials when its URL has them, then — once it answers 2xx — TLS to the target inside the tunnel (an https
 * target: the certificate verified for the target's name, never the proxy's), or the tunnel itself (an http
 * target: CONNECT for both, so the proxy sees only where we go, never a request, and one code path serves both).
 * The proxy's answer is read with a bound on its size and time; anything but 2xx is a ProxyTunnelError naming the
 * proxy (host and port only) and its status line. The tunnel is made while the connection is made: it is part of
 * connection setup, like a TCP or TLS handshake, and never of a request's service time.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

import { redact } from '../../core/index.js';
import type { HttpProxy } from './proxy-env.js';

/**
 * A tunnel that could not be made; `cause` is the socket's error, when there was one. `answer`: what the proxy answered
 * CONNECT, when it did: its status, or `malformed` (not HTTP/1.x, too long, bytes after it); `none` when it gave no
 * answer (could not be reached, was lost, closed, or was silent past our time); undefined when we ended the setup.
 */
export class ProxyTunnelError extends Error {
  readonly code = 'LOADPROOF_PROXY_TUNNEL';
  constructor(
    proxy: HttpProxy,
    what: string,
    cause?: unknown,
    private readonly answer?: number | 'malformed' | 'none',
  ) {
    super(`through the proxy ${proxy.shown} (${proxy.variable}): ${what}`, cause === undefined ? undefined : { cause });
  }

  /**
   * What a direct connection would have met when the proxy says it could not reach the target (502, 503: refused;
   * 504: timeout); undefined otherwise.
   */
  get targetOutcome(): 'refused' | 'timeout' | undefined {
    if (this.answer === 504) return 'timeout';
    return this.answer === 502 || this.answer === 503 ? 'refused' : undefined;
  }

  /**
   * The route failed, not the target: the proxy refused the tunnel itself (its own status, or an answer that is not
   * one), or could not be reached, was lost or fell silent before answering. Nothing reached the service.
   */
  get routeFault(): boolean {
    return this.answer !== undefined && this.targetOutcome === undefined;
  }
}

/** Where the tunnel goes: the target's host (no brackets) and port, and TLS inside it for an https target. */
interface TunnelTarget {
  readonly host: string;
  readonly port: number;
  /** TLS options for the target (see targetTls), or false for an http target. */
  readonly tls: ConnectionOptions | false;
}

/** The largest answer head to CONNECT read (a proxy's answer is a status line and a few headers). */
const MAX_TUNNEL_HEAD_BYTES = 16 * 1024;
/** How long the proxy may take to connect and answer CONNECT (wall ms). */
const TUNNEL_TIMEOUT_MS = 15_000;

/** TLS to `host`: its certificate verified for its name (SNI unless it is an address), HTTP/1.1 by ALPN. */
export function targetTls(host: string, extra?: ConnectionOptions): ConnectionOptions {
  return { host, ...(isIP(host) === 0 ? { servername: host } : {}), ALPNProtocols: ['http/1.1'], ...extra };
}

/**
 * Opens a connection to `target` through `proxy`. Returns the socket to the proxy at once (destroying it ends the
 * setup, which then fails), and calls `done` once: with the socket to use (for TLS, before its handshake), or with
 * why there is none.
 */
export function openTunnel(
  proxy: HttpProxy,
  target: TunnelTarget,
  done: (error: Error | undefined, socket: Socket | undefined) => void,
  timeoutMs = TUNNEL_TIMEOUT_MS,
): Socket {
  const raw = netConnect({ host: proxy.host, port: proxy.port, noDelay: true });
  const authority = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  let head = Buffer.alloc(0);
  let settled = false;
  const settle = (error: Error | undefined): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    raw.off('data', onData).off('error', onError).off('close', onClose).off('end', onEnd);
    if (error !== undefined) {
      raw.destroy();
      done(error, undefined);
    } else done(undefined, target.tls === false ? raw : tlsConnect({ ...target.tls, socket: raw }));
  };
  const fail = (what: string, cause?: unknown, answer?: number | 'malformed' | 'none'): void =>
    settle(new ProxyTunnelError(proxy, what, cause, answer));
  const startedAt = performance.now();
  const silent = (ms: number): string => `the proxy did not answer CONNECT ${authority} within ${seconds(ms)}`;
  const onError = (error: NodeJS.ErrnoException): void =>
    fail(`cannot reach the proxy or lost it (${error.code ?? error.name})`, error, 'none');
  const onEnd = (): void =>
    fail(`the proxy closed the connection before answering CONNECT ${authority}`, undefined, 'none');
  // A close with no end or error before it is ours: the caller ended the setup (its own time ran out, or it stopped).
  const onClose = (): void => fail(silent(performance.now() - startedAt));
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length > MAX_TUNNEL_HEAD_BYTES)
        fail(`its answer to CONNECT is over ${MAX_TUNNEL_HEAD_BYTES} bytes`, undefined, 'malformed');
      return;
    }
    const line = statusLine(head, proxy);
    const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(line)?.[1];
    if (status === undefined)
      return fail(`its answer to CONNECT ${authority} is not HTTP/1.x: "${line}"`, undefined, 'malformed');
    if (!status.startsWith('2'))
      return fail(`it answered CONNECT ${authority} with "${line}"${hint(status)}`, undefined, Number(status));
    // The target speaks only after we do: a byte here would be the proxy's, not the target's.
    if (head.length > end + 4)
      return fail(`it sent bytes after its answer to CONNECT ${authority}`, undefined, 'malformed');
    settle(undefined);
  };
  const timer = setTimeout(() => fail(silent(timeoutMs), undefined, 'none'), timeoutMs);
  raw.on('data', onData).on('error', onError).on('close', onClose).on('end', onEnd);
  const auth = proxy.authorization === undefined ? '' : `Proxy-Authorization: ${proxy.authorization}\r\n`;
  raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  return raw;
}

/**
 * The answer's first line, as a message may show it: the proxy's credentials masked first (a proxy may quote what it
 * was sent, and the message is printed before any command's mask knows them), then printable ASCII, at most 120
 * characters.
 */
function statusLine(head: Buffer, proxy: HttpProxy): string {
  const line = redact(head.subarray(0, Math.max(0, head.indexOf('\r\n'))).toString('utf8'), proxy.secrets);
  const printable = line.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 120 ? `${printable.slice(0, 120)}…` : printable;
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

function hint(status: string): string {
  if (status === '407')
    return ' (the proxy wants credentials: put them in the proxy URL, http://user:password@host:port)';
  if (status === '403')
    return " (the proxy does not allow this host or port: ask its administrator, or list the target's host in NO_PROXY)";
  return '';
}

/** How long the proxy may take to accept a connection when asked whether it is still there (wall ms). */
const PROXY_ALIVE_TIMEOUT_MS = 2000;

/**
 * Whether the proxy was lost: a connection to it refused or reset now is a ProxyTunnelError naming it (the route's
 * fault); undefined when it accepts one, or says nothing in time (not known lost). Through a tunnel a request's reset
 * comes from the proxy's socket: it is the target's only while the proxy is still there.
 */
export function proxyLost(proxy: HttpProxy, timeoutMs = PROXY_ALIVE_TIMEOUT_MS): Promise<ProxyTunnelError | undefined> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: proxy.host, port: proxy.port });
    const end = (lost: ProxyTunnelError | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(lost);
    };
    const timer = setTimeout(() => end(undefined), timeoutMs);
    socket.once('connect', () => end(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      end(new ProxyTunnelError(proxy, `the proxy was lost (${error.code ?? error.name})`, error, 'none')),
    );
  });
}
