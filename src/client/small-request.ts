/**
 * One small HTTP request through node:http / node:https, its whole answer read as text: for the few
 * calls a run makes besides its load (the token endpoint, the mock's stats). Not undici: loading it and
 * its WebAssembly HTTP parser cost a run about 20 MiB before its first request, for a
 * handful of calls. Each call has a connection of its own, closed after the answer: the calls are rare, and a
 * kept-alive connection that the server closed while it sat idle (a Node server does after 5 s) would fail
 * the next one, a token renewal an hour later. Failures are node's errors (`code`: ECONNREFUSED, ECONNRESET, …); an
 * abort by
 * `signal` rejects with an AbortError whose `cause` is the signal's reason. An answer whose body is over
 * `maxBytes` (default MAX_ANSWER_BYTES; announced or read) is not read on: the call fails with AnswerTooLargeError and
 * its connection is closed. Through a proxy (`proxy`), the connection is a CONNECT tunnel (src/client/http1/tunnel.ts),
 * TLS to the target inside it for https; a tunnel that cannot be made fails the call with a ProxyTunnelError.
 */
import { type ClientRequestArgs, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

import { checkPermitted, type SendPermit } from '../core/index.js';
import { watchPeerCertificate, withPeer } from './http1/peer-certificate.js';
import type { HttpProxy } from './http1/proxy-env.js';
import { AnswerTooLargeError, MAX_ANSWER_BYTES } from './http1/response.js';
import { openTunnel, targetTls } from './http1/tunnel.js';
import { trustOptions } from './tls-trust.js';

interface SmallRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Ends the call (its socket too) when aborted. */
  readonly signal?: AbortSignal;
  /** The largest answer body read, bytes (default MAX_ANSWER_BYTES). */
  readonly maxBytes?: number;
  /** The proxy to reach `url` through (the target's: ResolvedTarget.proxy), if any. */
  readonly proxy?: HttpProxy | undefined;
  /** CA certificates (PEM) trusted besides Node's own, for an https: url. */
  readonly ca?: string;
}

export interface SmallResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as UTF-8 text. */
  readonly text: string;
}

/** Sends one request to `url` (http: or https:), which the guard's `permit` covers, and reads the whole answer. */
export function smallRequest(permit: SendPermit, url: string, options: SmallRequest = {}): Promise<SmallResponse> {
  checkPermitted(permit, url);
  return new Promise<SmallResponse>((resolve, reject) => {
    const https = new URL(url).protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const headers =
      options.body === undefined
        ? { ...options.headers }
        : { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
    const req = send(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        // No agent: a connection of its own, closed after the answer.
        ...(options.proxy === undefined
          ? { agent: false }
          : { createConnection: tunnelTo(options.proxy, url, options.signal, options.ca) }),
        // HTTP/1.1 said in the handshake, so a server that speaks only HTTP/2 refuses it there, by name.
        ...(https ? { ALPNProtocols: ['http/1.1'], ...trustOptions(options.ca) } : {}),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (res) => {
        const maxBytes = options.maxBytes ?? MAX_ANSWER_BYTES;
        const chunks: Buffer[] = [];
        let bytes = 0;
        // Settled first, then the socket closed: the rest of the answer is never read.
        const tooLarge = (): void => {
          reject(new AnswerTooLargeError(maxBytes));
          req.destroy();
        };
        const announced = res.headers['content-length'];
        if (announced !== undefined && Number(announced) > maxBytes) return tooLarge();
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > maxBytes) tooLarge();
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        // Closed before the answer was whole (a later settle is ignored).
        res.on('close', () => {
          if (!res.complete)
            reject(
              Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }),
            );
        });
      },
    );
    let peer: ReturnType<typeof watchPeerCertificate> = () => undefined;
    if (https) req.on('socket', (socket) => (peer = watchPeerCertificate(socket as TLSSocket)));
    req.on('error', (error) => reject(withPeer(error, peer())));
    req.end(options.body);
  });
}

/**
 * node:http's createConnection for a request through `proxy`: the socket is handed over once the tunnel is made
 * (node waits for the callback when nothing is returned). An abort ends the tunnel being made too.
 */
function tunnelTo(
  proxy: HttpProxy,
  url: string,
  signal: AbortSignal | undefined,
  ca: string | undefined,
): ClientRequestArgs['createConnection'] {
  return (_options, oncreate) => {
    const { protocol, hostname, port } = new URL(url);
    const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    const target = {
      host,
      port: port !== '' ? Number(port) : protocol === 'https:' ? 443 : 80,
      tls: protocol === 'https:' && targetTls(host, trustOptions(ca)),
    };
    const raw = openTunnel(proxy, target, (error, socket) => oncreate(error ?? null, socket!));
    signal?.addEventListener('abort', () => raw.destroy(), { once: true });
    return undefined as unknown as Socket;
  };
}
