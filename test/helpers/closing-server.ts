/**
 * A raw HTTP/1.1 server on loopback (node:net, so nothing answers for us) that answers a connection's requests
 * with 200 and no Keep-Alive header, as nginx does, and on a chosen request of a connection closes without
 * answering: with a FIN (the request read, the socket ended) or an RST (resetAndDestroy). It keeps every
 * request's x-loadproof-seq / x-loadproof-attempt, and each connection's socket, so a test can close an idle
 * connection itself at the moment it chooses. It can close as a gateway's idle timeout does: on a request that
 * arrives after the connection sat idle (as the server saw it: since it was accepted or last answered) past a limit.
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';

export type CloseWith = 'fin' | 'rst';

export interface ClosingServer {
  readonly url: string;
  /** Requests read, in order: their correlation headers (absent when the request had none). */
  readonly seen: { seq?: number; attempt?: number; connection: number }[];
  /** Requests closed instead of answered: their seq, and how long the server saw their connection idle before them. */
  readonly closed: { seq?: number; idleMs: number }[];
  /** Every connection's socket, by its number (1-based). */
  readonly sockets: Socket[];
  close(): Promise<void>;
}

/**
 * `closeOn(n, idleMs)`: how to close when a connection's n-th request arrives after it sat idle `idleMs` (undefined:
 * answer it).
 */
export async function startClosingServer(
  closeOn: (n: number, idleMs: number) => CloseWith | undefined,
): Promise<ClosingServer> {
  const seen: ClosingServer['seen'] = [];
  const closed: ClosingServer['closed'] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const connection = sockets.length;
    let n = 0;
    let buffered = '';
    let idleSince = performance.now();
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One request at a time per connection (no pipelining): a request is its head and content-length bytes.
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd < 0) return;
        const head = buffered.slice(0, headEnd);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        buffered = buffered.slice(headEnd + 4 + length);
        const seq = /x-loadproof-seq: *(\d+)/i.exec(head)?.[1];
        const attempt = /x-loadproof-attempt: *(\d+)/i.exec(head)?.[1];
        seen.push({
          connection,
          ...(seq === undefined ? {} : { seq: Number(seq) }),
          ...(attempt === undefined ? {} : { attempt: Number(attempt) }),
        });
        const idleMs = performance.now() - idleSince;
        const how = closeOn(++n, idleMs);
        if (how !== undefined) closed.push({ ...(seq === undefined ? {} : { seq: Number(seq) }), idleMs });
        if (how === 'fin') return void socket.end();
        if (how === 'rst') return void socket.resetAndDestroy();
        // Not loadproof's mock: no /__mock/stats (a user's own server, judged at time scale 1).
        const token = JSON.stringify({ access_token: `lpmock_at_closing_${'x'.repeat(24)}`, expires_in: 3600 });
        const [status, body] = head.startsWith('POST /oauth/token ')
          ? ['200 OK', token]
          : head.startsWith('POST /')
            ? ['200 OK', '{"entities":[]}']
            : ['404 Not Found', '{"error":"not_found"}'];
        socket.write(
          `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        idleSince = performance.now();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    closed,
    sockets,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
