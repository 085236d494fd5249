/**
 * A TLS server on 127.0.0.1 with a given key and certificate: in front of an HTTP upstream (loadproof's mock,
 * reached through it as through a gateway), or an HTTP/2-only one that speaks no HTTP/1.1.
 */
import { request } from 'node:http';
import { createSecureServer } from 'node:http2';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

export interface TlsFront {
  readonly url: string;
  /** TLS connections the server accepted (a handshake began). */
  readonly connections: () => number;
  close(): Promise<void>;
}

/** An https server that passes every request on to `upstream` (http://host:port) and its answer back. */
export function startTlsFront(upstream: string, tls: { key: string; cert: string }): Promise<TlsFront> {
  const to = new URL(upstream);
  const server = createServer(tls, (req, res) => {
    const up = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return listen(server);
}

/** An HTTP/2 server over TLS that refuses HTTP/1.1 (ALPN h2 only). */
export function startHttp2Only(tls: { key: string; cert: string }): Promise<TlsFront> {
  const server = createSecureServer({ ...tls, allowHTTP1: false }, (_req, res) => res.end('{}'));
  return listen(server);
}

async function listen(server: Server | TlsServer): Promise<TlsFront> {
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        (server as Server).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
