/**
 * Node's own HTTP/1.1 response parser (llhttp, through node:http) as the reference reader of exact bytes: one raw
 * node:net server on 127.0.0.1 writes the bytes a test hands it and closes its side, and an http.request reads them.
 * What it gives is what Node's client makes of those bytes: the answer, or the error, and whether the answer was
 * whole before the close (framed by its length or its chunks) or only at the close.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';

/** What llhttp made of the bytes. */
export interface ReferenceReading {
  /** The answer was read whole (framed, or ended by the close) before any error. */
  readonly accepted: boolean;
  /** llhttp's code (HPE_*), ECONNRESET when the bytes ended before the answer did, or undefined. */
  readonly error: string | undefined;
  readonly status: number | undefined;
  /** Header values by lower-case name, a repeated header's values joined with ", " (raw, as our parser keeps them). */
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** The answer was whole before the server's close: framed by Content-Length or chunks, not by the close. */
  readonly wholeBeforeClose: boolean;
  /** llhttp would keep the connection for another request. */
  readonly keepAlive: boolean;
}

/** A safety bound on one reading (the server answers at once; this is no speed check). */
const READING_LIMIT_MS = 30_000;

export class LlhttpReference {
  private next = 0;

  private constructor(
    private readonly server: Server,
    private readonly port: number,
    /** The bytes to write, by request id. */
    private readonly pending: Map<number, Buffer>,
  ) {}

  static async start(): Promise<LlhttpReference> {
    const pending = new Map<number, Buffer>();
    const server = createServer((socket) => answer(socket, pending));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new LlhttpReference(server, (server.address() as AddressInfo).port, pending);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Reads `bytes` as the answer to one request, on a connection of its own. */
  read(bytes: Buffer): Promise<ReferenceReading> {
    const id = ++this.next;
    this.pending.set(id, bytes);
    return readOne(this.port, id).finally(() => this.pending.delete(id));
  }
}

/** The request's path names the bytes to write; they are written whole, then the server closes its side. */
function answer(socket: Socket, pending: ReadonlyMap<number, Buffer>): void {
  let request = '';
  socket.on('error', () => {});
  socket.on('data', (data) => {
    request += data.toString('latin1');
    if (!request.includes('\r\n\r\n')) return;
    const id = Number(/^GET \/(\d+) /.exec(request)?.[1]);
    socket.end(pending.get(id) ?? Buffer.alloc(0));
  });
}

function readOne(port: number, id: number): Promise<ReferenceReading> {
  return new Promise((resolve, reject) => {
    // A keep-alive agent of its own: llhttp's keep-alive decision shows in req.shouldKeepAlive; no socket is shared.
    const agent = new http.Agent({ keepAlive: true });
    // Node's defaults, whatever NODE_OPTIONS says (--max-http-header-size, --insecure-http-parser): strict llhttp.
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: `/${id}`,
      agent,
      maxHeaderSize: 16 * 1024,
      insecureHTTPParser: false,
    });
    const body: Buffer[] = [];
    let res: http.IncomingMessage | undefined;
    let error: string | undefined;
    let errorAfterAnswer = false;
    let closeSeen = false;
    let wholeAtClose = false;
    let socketClosed = false;
    let resClosed = false;
    const limit = setTimeout(() => reject(new Error(`llhttp reading ${id} did not end`)), READING_LIMIT_MS);
    const settle = (): void => {
      if (!socketClosed || (res !== undefined && !resClosed)) return;
      clearTimeout(limit);
      agent.destroy();
      const accepted = res?.complete === true && (error === undefined || errorAfterAnswer);
      resolve({
        accepted,
        error: accepted ? undefined : (error ?? 'ECONNRESET'),
        status: res?.statusCode,
        headers: joinHeaders(res?.rawHeaders ?? []),
        body: Buffer.concat(body),
        // No close seen: node:http ended the connection itself, after an answer whole before any close.
        wholeBeforeClose: closeSeen ? wholeAtClose : res?.complete === true,
        keepAlive: req.shouldKeepAlive,
      });
    };
    req.on('socket', (socket) => {
      // Before node:http's own listener, which completes an answer read to the close.
      socket.prependListener('end', () => ((closeSeen = true), (wholeAtClose = res?.complete === true)));
      socket.on('close', () => setImmediate(() => ((socketClosed = true), settle())));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      errorAfterAnswer ||= error === undefined && res?.complete === true;
      error ??= e.code ?? e.message;
      // Errors before the socket exists (none on loopback) would leave nothing to wait for.
      if (req.socket === null) {
        socketClosed = true;
        settle();
      }
    });
    req.on('response', (r) => {
      res = r;
      r.on('data', (d: Buffer) => body.push(d));
      r.on('error', () => {});
      r.on('close', () => ((resClosed = true), settle()));
    });
    req.end();
  });
}

function joinHeaders(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    headers[name] = headers[name] === undefined ? raw[i + 1]! : `${headers[name]}, ${raw[i + 1]!}`;
  }
  return headers;
}
