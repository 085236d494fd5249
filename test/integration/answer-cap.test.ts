/**
 * An answer larger than MAX_ANSWER_BYTES is not read past the cap (a hostile or broken service cannot make us hold it
 * whole): the connection is closed, the request's outcome is `too_large` (never `ok`), and the next request goes on, on
 * a new connection. The server is a raw loopback stub that writes each framing a hostile or broken service could: a
 * body just over the cap with its Content-Length, a Content-Length announcing far more than it sends, chunked without
 * a length (many small chunks, or one chunk whose size line announces 4 GiB), and a body read until the close.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { createIdentify } from '../../src/client/api.js';
import { ConnectionPool, MAX_ANSWER_BYTES } from '../../src/client/http1/index.js';
import { smallRequest } from '../../src/client/small-request.js';
import { ManualClock } from '../../src/core/clock.js';
import { createRng } from '../../src/core/rng.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

type Framing =
  'at-cap' | 'length' | 'announced' | 'chunked' | 'huge-chunk' | 'until-close' | 'interim-flood' | 'long-chunk-line';

const OK = '{"entities":[]}';

/** Writes an answer of the given framing, then (except until-close) leaves the connection open. */
function writeAnswer(socket: Socket, framing: Framing): void {
  const over = MAX_ANSWER_BYTES + 1;
  const head = (h: string): void => void socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${h}\r\n`);
  // A JSON object of exactly n bytes.
  const pad = (n: number): string => `{"entities":[],"pad":"${'x'.repeat(n - '{"entities":[],"pad":""}'.length)}"}`;
  switch (framing) {
    case 'at-cap': {
      const body = pad(MAX_ANSWER_BYTES);
      head(`content-length: ${body.length}\r\n`);
      socket.write(body);
      return;
    }
    case 'length': {
      const body = pad(over);
      head(`content-length: ${Buffer.byteLength(body)}\r\n`);
      socket.write(body);
      return;
    }
    case 'announced':
      // 64 GiB announced, a few bytes sent: the client must not wait for (or make room for) the rest.
      head(`content-length: ${64 * 1024 ** 3}\r\n`);
      socket.write('{"entities":[');
      return;
    case 'chunked': {
      head('transfer-encoding: chunked\r\n');
      const piece = 'x'.repeat(4096);
      for (let sent = 0; sent <= over; sent += piece.length)
        socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
      socket.write('0\r\n\r\n');
      return;
    }
    case 'huge-chunk':
      head('transfer-encoding: chunked\r\n');
      // A 4 GiB chunk announced, then more than the cap of it sent.
      socket.write(`ffffffff\r\n${'x'.repeat(over)}`);
      return;
    case 'interim-flood': {
      // Interim answers without end: each is small, together they pass the cap.
      const interim = 'HTTP/1.1 102 Processing\r\nx-pad: ' + 'x'.repeat(1000) + '\r\n\r\n';
      for (let sent = 0; sent <= over; sent += interim.length) socket.write(interim);
      return;
    }
    case 'long-chunk-line':
      // A chunk-size line of 1 MiB (a chunk extension without end): not HTTP a client need read, bounded at 8 KiB.
      head('transfer-encoding: chunked\r\n');
      socket.write(`10;ext=${'x'.repeat(1024 * 1024)}\r\n`);
      return;
    case 'until-close':
      head('connection: close\r\n');
      socket.write(pad(over), () => socket.end());
      return;
  }
}

interface RawStub {
  readonly url: string;
  /** Connections accepted, and those the client closed. */
  readonly counts: { connections: number; closedByClient: number; requests: number };
  close(): Promise<void>;
}

/** The first request on each server gets `framing`; every later one a small 200. */
async function startRawStub(framing: Framing): Promise<RawStub> {
  const counts = { connections: 0, closedByClient: 0, requests: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    counts.connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('end', () => counts.closedByClient++);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // One request per head + body (the client's bodies are small and sent in one write).
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        counts.requests++;
        if (counts.requests === 1) writeAnswer(socket, framing);
        else
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${OK.length}\r\n\r\n${OK}`,
          );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let stub: RawStub | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  pool = undefined;
  await stub?.close();
  stub = undefined;
});

const tokens = { current: () => 'tok', get: async () => 'tok', accepted: () => {}, rejected: () => {} };

const client = (url: string, p: ConnectionPool) =>
  createIdentify({
    baseUrl: url,
    pool: p,
    tokens,
    clock: new ManualClock(0),
    timeScale: 1,
    // Generous: the test is about the outcome, not speed (a busy machine must not turn it into a timeout).
    timeoutMs: 30_000,
    on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 30_000 },
    rng: createRng(1),
  });

describe(`an answer over MAX_ANSWER_BYTES (${MAX_ANSWER_BYTES} bytes)`, () => {
  it('an answer of exactly the cap is read whole: ok, and its connection reused', async () => {
    stub = await startRawStub('at-cap');
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 4);
    const identify = client(stub.url, pool);
    expect((await identify('Patient John Smith.', 1))!).toMatchObject({ outcome: 'ok', status: 200 });
    expect((await identify('Patient John Smith.', 2))!).toMatchObject({ outcome: 'ok', status: 200 });
    expect(stub.counts.connections).toBe(1);
  });

  for (const framing of ['length', 'announced', 'chunked', 'huge-chunk', 'until-close', 'interim-flood'] as const) {
    it(`${framing}: outcome too_large, the connection closed, the next request answered on a new one`, async () => {
      stub = await startRawStub(framing);
      pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 4);
      const identify = client(stub.url, pool);
      const first = (await identify('Patient John Smith.', 1))!;
      expect(first.outcome).toBe('too_large');
      expect(first.attempts).toBe(1);
      const second = (await identify('Patient John Smith.', 2))!;
      expect(second).toMatchObject({ outcome: 'ok', status: 200 });
      // The over-cap answer's connection was not reused: the second request needed a new one.
      expect(stub.counts.connections).toBe(2);
    });
  }

  it('a chunk-size line over 8 KiB: an error (not HTTP a client reads on), the connection closed, the next request answered', async () => {
    stub = await startRawStub('long-chunk-line');
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 4);
    const identify = client(stub.url, pool);
    expect((await identify('Patient John Smith.', 1))!.outcome).toBe('error');
    expect((await identify('Patient John Smith.', 2))!).toMatchObject({ outcome: 'ok', status: 200 });
    expect(stub.counts.connections).toBe(2);
  });
});

describe('smallRequest (the token endpoint, deid, check, the mock stats) holds the same cap', () => {
  for (const framing of ['length', 'announced', 'chunked', 'huge-chunk', 'until-close'] as const) {
    it(`${framing}: fails with LOADPROOF_ANSWER_TOO_LARGE and closes the connection`, async () => {
      stub = await startRawStub(framing);
      const call = smallRequest(LOOPBACK_PERMIT, stub.url + '/x', {
        method: 'POST',
        body: '{}',
        signal: AbortSignal.timeout(30_000),
      });
      await expect(call).rejects.toMatchObject({ code: 'LOADPROOF_ANSWER_TOO_LARGE' });
    });
  }

  it('an answer of exactly the cap is read whole', async () => {
    stub = await startRawStub('at-cap');
    const res = await smallRequest(LOOPBACK_PERMIT, stub.url + '/x', {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(30_000),
    });
    expect(res.text.length).toBe(MAX_ANSWER_BYTES);
  });
});
