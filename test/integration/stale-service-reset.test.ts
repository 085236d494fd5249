/**
 * A service that reads a request on a reused connection, works on it, then resets the connection is the service's
 * fault (a reset), not a stale kept-alive connection: an idle close that crosses our request reaches us within about
 * a round trip of our write, never 2 s later, and a connection idle for a moment cannot have been closed for
 * idleness. Found by review: both were once counted stale_connection (not an error: the service's fault excused).
 */
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { ConnectionPool } from '../../src/client/http1/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

const sockets: Socket[] = [];
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  for (const s of sockets) s.destroy();
  await close?.();
  close = undefined;
});

/** Answers a connection's first request; reads its second, works on it for `workMs`, then resets the connection. */
async function startServer(workMs: number): Promise<string> {
  const server = createServer((socket) => {
    sockets.push(socket);
    let n = 0;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      if (!chunk.toString('latin1').includes('\r\n\r\n{}')) return;
      n++;
      if (n === 2) return void setTimeout(() => socket.resetAndDestroy(), workMs);
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  close = () => new Promise((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function send(p: ConnectionPool, url: string): Promise<string> {
  const bytes = `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 2\r\n\r\n{}`;
  return new Promise((resolve) =>
    p.request(
      bytes,
      10_000,
      () => {},
      (error, response) =>
        resolve(response === undefined ? String((error as { code?: string }).code) : `status ${response.status}`),
    ),
  );
}

describe('a reset 2 s after the server read the request, on a reused connection', () => {
  // Idle at once (under the floor), and idle past the floor (so only the late close can tell it from a stale one).
  it.each([0, 150])(
    "after the connection sat idle %i ms: the service's reset, not a stale connection",
    async (idle) => {
      const url = await startServer(2000);
      const pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, url, 1);
      try {
        expect(await send(pool, url)).toBe('status 200');
        await sleep(idle);
        expect(await send(pool, url)).toBe('ECONNRESET');
      } finally {
        pool.close();
      }
    },
    20_000,
  );
});
