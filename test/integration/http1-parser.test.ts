/**
 * Our HTTP/1.1 client's response parsing, through real sockets: raw node:net servers on 127.0.0.1
 * that write exact bytes (split where the test says), and the pool reading them. Every wait is bounded
 * by the request's own deadline, so a parser that hangs fails with LOADPROOF_DEADLINE, not a stuck test.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { ConnectionPool, type Http1Response, ResponseParser } from '../../src/client/http1/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

const servers: Server[] = [];
const pools: ConnectionPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) pool.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A raw server: `onRequest(socket, n)` is called once per request received (n from 1), whole. */
async function rawServer(
  onRequest: (socket: Socket, n: number) => void,
): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    let buffered = '';
    socket.on('error', () => {});
    socket.setNoDelay(true); // each piece goes out at once (Nagle would hold the second for an ACK)
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      // Our requests carry a Content-Length; the tests' bodies are short.
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        onRequest(socket, ++n);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

const REQUEST = 'POST /x HTTP/1.1\r\nhost: test\r\ncontent-length: 2\r\n\r\n{}';

function send(pool: ConnectionPool, timeoutMs = 2000): Promise<Http1Response | string> {
  return new Promise((resolve) =>
    pool.request(
      REQUEST,
      timeoutMs,
      () => {},
      (error, response) => resolve(response ?? String((error as { code?: string }).code)),
    ),
  );
}

function poolFor(url: string, maxHeadBytes?: number): ConnectionPool {
  const base = ConnectionPool.forUrl(LOOPBACK_PERMIT, url, 2);
  const pool =
    maxHeadBytes === undefined
      ? base
      : new ConnectionPool({
          permit: LOOPBACK_PERMIT,
          origin: { protocol: 'http:', hostname: '127.0.0.1', port: Number(new URL(url).port) },
          maxConnections: 2,
          maxHeadBytes,
        });
  pools.push(pool);
  return pool;
}

const LENGTH_RESPONSE =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nServer-Timing: svc;dur=12\r\nContent-Length: 17\r\n\r\n{"entities":[12]}';
const CHUNKED_RESPONSE =
  'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\n{"a":\r\nA\r\n"too many"\r\n1\r\n}\r\n0\r\nX-Trailer: t\r\n\r\n';

describe('HTTP/1.1 response parsing over real sockets', () => {
  it('reads a Content-Length response and a chunked one split at every byte boundary, on one kept-alive connection', async () => {
    // Request n gets one of the two responses, written in two pieces split after byte `split`.
    const plan: { response: string; split: number }[] = [];
    for (const response of [LENGTH_RESPONSE, CHUNKED_RESPONSE])
      for (let split = 1; split < response.length; split++) plan.push({ response, split });
    const server = await rawServer((socket, n) => {
      const { response, split } = plan[n - 1]!;
      socket.write(response.slice(0, split));
      // The second piece in a later turn, so the client reads two chunks.
      setTimeout(() => socket.write(response.slice(split)), 1);
    });
    const pool = poolFor(server.url);
    for (const { response, split } of plan) {
      const r = await send(pool);
      if (typeof r === 'string') throw new Error(`split at ${split} of ${JSON.stringify(response.slice(0, 20))}: ${r}`);
      if (response === LENGTH_RESPONSE) {
        expect([r.status, r.body.toString(), r.headers['server-timing'], r.close]).toEqual([
          200,
          '{"entities":[12]}',
          'svc;dur=12',
          false,
        ]);
      } else {
        expect([r.status, r.body.toString(), r.headers['retry-after'], r.close]).toEqual([
          429,
          '{"a":"too many"}',
          '7',
          false,
        ]);
      }
    }
    expect(server.connections()).toBe(1);
  });

  it('honours Connection: close (the next request opens a new connection), and reads a body that ends with the close', async () => {
    const server = await rawServer((socket, n) => {
      if (n === 1) socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}');
      else socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"until":"close"}');
    });
    const pool = poolFor(server.url);
    expect(await send(pool)).toMatchObject({ status: 200, close: true });
    const r = await send(pool);
    expect(typeof r === 'string' ? r : [r.status, r.body.toString()]).toEqual([200, '{"until":"close"}']);
    expect(server.connections()).toBe(2);
  });

  it('skips an interim 100 Continue and reads the answer after it', async () => {
    const server = await rawServer((socket) =>
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n'),
    );
    expect(await send(poolFor(server.url))).toMatchObject({ status: 204 });
  });

  it('says ECONNRESET when the server closes mid-body, mid-head, or before answering', async () => {
    const cuts = [
      'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"entit',
      'HTTP/1.1 200 OK\r\nContent-Le',
      '',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":',
    ];
    const server = await rawServer((socket, n) => socket.end(cuts[n - 1]!));
    const pool = poolFor(server.url);
    for (let i = 0; i < cuts.length; i++) expect(await send(pool)).toBe('ECONNRESET');
  });

  it('fails a response whose head exceeds the limit with a clear error, not a hang', async () => {
    const server = await rawServer((socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'y'.repeat(4000)}\r\nContent-Length: 2\r\n\r\n{}`),
    );
    expect(await send(poolFor(server.url, 1024), 60_000)).toBe('HPE_HEADER_OVERFLOW');
  });

  it('fails what is not HTTP/1.x, or framed wrong, with a parse error', async () => {
    const bad = [
      'SSH-2.0-OpenSSH\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ];
    const server = await rawServer((socket, n) => socket.write(bad[n - 1]!));
    const pool = poolFor(server.url);
    const codes = [];
    for (let i = 0; i < bad.length; i++) codes.push(await send(pool));
    expect(codes).toEqual(['HPE_INVALID_STATUS', 'HPE_INVALID_CONTENT_LENGTH', 'HPE_INVALID_CHUNK_SIZE']);
  });
});

describe('ResponseParser', () => {
  it('parses a response fed one byte at a time', () => {
    for (const response of [LENGTH_RESPONSE, CHUNKED_RESPONSE]) {
      const parser = new ResponseParser();
      const bytes = Buffer.from(response, 'latin1');
      let result: Http1Response | undefined;
      for (let i = 0; i < bytes.length; i++) {
        expect(result).toBeUndefined();
        result = parser.push(bytes.subarray(i, i + 1));
      }
      expect(result?.body.toString()).toBe(response === LENGTH_RESPONSE ? '{"entities":[12]}' : '{"a":"too many"}');
    }
  });

  it('keeps headers named like members of Object.prototype as headers (constructor, __proto__, toString)', () => {
    const parser = new ResponseParser();
    const res = parser.push(
      Buffer.from('HTTP/1.1 200 OK\r\nConstructor: a\r\n__proto__: b\r\ntoString: c\r\nContent-Length: 2\r\n\r\n{}'),
    );
    expect(res?.headers['constructor']).toBe('a');
    expect(res?.headers['__proto__']).toBe('b');
    expect(res?.headers['tostring']).toBe('c');
    expect(Object.keys(res!.headers).sort()).toEqual(['__proto__', 'constructor', 'content-length', 'tostring']);
  });

  it("marks a response followed by stray bytes as the connection's last, and reads Keep-Alive: timeout", () => {
    const parser = new ResponseParser();
    expect(
      parser.push(Buffer.from('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5\r\nContent-Length: 2\r\n\r\n{}junk')),
    ).toMatchObject({ close: true, keepAliveMs: 5000 });
  });

  it('reads status and headers as a split-and-trim reading would, for ordinary and odd heads alike', () => {
    // The reading the parser had before it was written by hand, with RFC 9110's syntax of a line (a name is a token, a
    // value holds no control character, spaces and tabs around it are trimmed): the reference for every head below.
    const reference = (head: string): { status: number; headers: Record<string, string> } | string => {
      const lines = head.split('\r\n');
      const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
      if (m === null) return 'HPE_INVALID_STATUS';
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon <= 0 || !/^[-!#$%&'*+.^_`|~0-9A-Za-z]+$/.test(line.slice(0, colon))) return 'HPE_INVALID_HEADER';
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
        if (/[^\t\x20-\x7e\x80-\xff]/.test(value)) return 'HPE_INVALID_HEADER';
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
      }
      return { status: Number(m[2]), headers };
    };
    const statusLines = [
      'HTTP/1.1 200 OK',
      'HTTP/1.0 204',
      'HTTP/1.1 429 Too Many Requests',
      'HTTP/1.2 200 OK',
      'HTTP/1.1 20 OK',
      'HTTP/1.1 2000 OK',
      'HTTP/1.1 2000',
      'HTTP/1.1 200',
      'HTTP/1.1 200 ',
      'HTTP/1.1  200 OK',
      'HTTP/1.1 200\tOK',
      'http/1.1 200 OK',
      'HTTP/1.1 abc',
    ];
    const headerLines = [
      'Content-Type: application/json',
      'X-Odd:\t spaced value \u00a0',
      'retry-after:30',
      'Server-Timing: svc;dur=12.5',
      'X-Twice: one',
      'X-TWICE: two',
      'X-Empty:',
      ': no name',
      'no colon here',
      'Bare\nLF: inside',
      'Weird-Name : v',
    ];
    for (const statusLine of statusLines) {
      for (let i = 0; i < headerLines.length; i++) {
        for (const count of [0, 1, 3, headerLines.length]) {
          const lines = Array.from({ length: count }, (_, j) => headerLines[(i + j) % headerLines.length]!);
          const head = [statusLine, ...lines].join('\r\n');
          const expected = reference(head);
          const parser = new ResponseParser();
          let got: { status: number; headers: Record<string, string> } | string;
          try {
            const r = parser.push(Buffer.from(`${head}\r\ncontent-length: 0\r\n\r\n`, 'latin1'));
            got = r === undefined ? 'interim' : { status: r.status, headers: r.headers };
          } catch (error) {
            got = (error as { code: string }).code;
          }
          if (typeof expected === 'string') expect(got, head).toBe(expected);
          else if (expected.status < 200) expect(got, head).toBe('interim');
          else
            expect(got, head).toEqual({
              status: expected.status,
              headers: {
                ...expected.headers,
                'content-length':
                  expected.headers['content-length'] === undefined ? '0' : `${expected.headers['content-length']}, 0`,
              },
            });
        }
      }
    }
  });
});
