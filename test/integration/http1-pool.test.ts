/**
 * The HTTP/1.1 connection pool against real servers on loopback: connections opened ahead of the load, reuse,
 * deadlines, cancel.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { ConnectionPool, type Http1Response } from '../../src/client/http1/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';
import { startStub, type Stub } from '../helpers/stub.js';

let stub: Stub | undefined;
let pool: ConnectionPool | undefined;
const servers: Server[] = [];
const rawServers: NetServer[] = [];
afterEach(async () => {
  pool?.close();
  pool = undefined;
  for (const raw of rawServers.splice(0)) await new Promise((resolve) => raw.close(resolve));
  await stub?.close();
  stub = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const POST = (host: string, body = '{}'): string =>
  `POST /entityextraction/pipelines/vendor-phi-identification HTTP/1.1\r\nhost: ${host}\r\ncontent-length: ${body.length}\r\n\r\n${body}`;

/** One request through the pool: its response, or the code of the error that ended it. */
function send(p: ConnectionPool, bytes: string, timeoutMs = 5000): Promise<Http1Response | string> {
  return new Promise((resolve) =>
    p.request(
      bytes,
      timeoutMs,
      () => {},
      (error, response) => resolve(response ?? String((error as { code?: string }).code)),
    ),
  );
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('ConnectionPool', () => {
  it('opens the connections before any request, and every request sent on one is answered', async () => {
    stub = await startStub();
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 20);
    expect(await pool.open(8, 5000)).toBe(8);
    const host = new URL(stub.url).host;
    // 8 at once: each takes a warm connection (no new one is made).
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(pool!, POST(host))));
    expect(answers.map((a) => (typeof a === 'string' ? a : a.status))).toEqual(Array(8).fill(200));
    expect(stub.counts.connections).toBe(8);
    expect(stub.counts.identification).toBe(8);
    // Kept alive: 8 more, one after another, reuse them.
    for (let i = 0; i < 8; i++) expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
    expect(stub.counts.connections).toBe(8);
  });

  it('does not reuse a connection idle longer than its lifetime when the server gave no Keep-Alive timeout (a silent drop by a load balancer)', async () => {
    // A raw server that answers without any Keep-Alive header (node:http would send one) and counts connections.
    let connections = 0;
    const raw = createNetServer((socket) => {
      connections++;
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'));
      socket.on('error', () => {});
    });
    rawServers.push(raw);
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const port = (raw.address() as AddressInfo).port;
    pool = new ConnectionPool({
      permit: LOOPBACK_PERMIT,
      origin: { protocol: 'http:', hostname: '127.0.0.1', port },
      maxConnections: 4,
      idleLifetimeMs: 100,
    });
    const host = `127.0.0.1:${port}`;
    expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
    expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
    expect(connections).toBe(1); // reused while fresh
    await new Promise((r) => setTimeout(r, 250));
    expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
    expect(connections).toBe(2); // idle 250 ms > 100 ms: a new connection, the old one closed
  });

  it('never hands out a warm connection the server has closed', async () => {
    // A server that closes the first 3 connections at once, and serves the others.
    let seen = 0;
    const server = createServer((req, res) => req.resume().on('end', () => res.end('{}')));
    server.on('connection', (socket) => {
      if (++seen <= 3) socket.end();
    });
    const host = await listen(server);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `http://${host}`, 4);
    expect(await pool.open(3, 5000)).toBe(3);
    // Bounded: the three FINs arrive within a few turns of the loop.
    for (let turns = 0; pool.available > 0 && turns < 1000; turns++) await new Promise((r) => setImmediate(r));
    expect(pool.available).toBe(0);
    expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
  });

  it('ends a request on its own deadline, and the next request still gets an answer', async () => {
    let n = 0;
    const server = createServer((req, res) => req.resume().on('end', () => (++n === 1 ? undefined : res.end('{}'))));
    const host = await listen(server);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `http://${host}`, 2);
    expect(await send(pool, POST(host), 50)).toBe('LOADPROOF_DEADLINE');
    expect(await send(pool, POST(host))).toMatchObject({ status: 200 });
  });

  it('cancels every request in flight at once, and only those', async () => {
    const server = createServer((req) => req.resume()); // never answers
    const host = await listen(server);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `http://${host}`, 4);
    const pending = Promise.all([send(pool, POST(host), 60_000), send(pool, POST(host), 60_000)]);
    setTimeout(() => pool!.cancelAll(), 20);
    expect(await pending).toEqual(['LOADPROOF_CANCELLED', 'LOADPROOF_CANCELLED']);
  });

  it('queues a request when every connection is busy, and sends it when one frees', async () => {
    stub = await startStub({ identify: (n) => ({ status: 200, body: { n }, delayMs: n === 1 ? 30 : 0 }) });
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 1);
    const host = new URL(stub.url).host;
    const sentOrder: number[] = [];
    const one = (i: number): Promise<string> =>
      new Promise((resolve) =>
        pool!.request(
          POST(host),
          5000,
          () => sentOrder.push(i),
          (_e, r) => resolve(r!.body.toString()),
        ),
      );
    expect(await Promise.all([one(1), one(2)])).toEqual(['{"n":1}', '{"n":2}']);
    expect(sentOrder).toEqual([1, 2]);
    expect(stub.counts.connections).toBe(1);
  });

  it('opens at most a few connections at once for requests that wait, however many wait, and sends them all', async () => {
    stub = await startStub({ identify: (n) => ({ status: 200, body: { n }, delayMs: 20 }) });
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 1000);
    const host = new URL(stub.url).host;
    // A backlog of 100 overdue arrivals at once: 100 connections opened together would cost more than
    // waiting for the first few to free (such storms of handshakes turned a second's hiccup into a collapse).
    const answers = Array.from({ length: 100 }, () => send(pool!, POST(host)));
    expect(pool.connectingNow).toBe(ConnectionPool.MAX_CONNECTING);
    const all = await Promise.all(answers);
    expect(all.every((r) => typeof r !== 'string' && r.status === 200)).toBe(true);
    expect(pool.connectingNow).toBe(0);
  });

  it('says ECONNREFUSED when nothing listens', async () => {
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, 'http://127.0.0.1:1', 1);
    expect(await send(pool, POST('127.0.0.1:1'))).toBe('ECONNREFUSED');
  });
});

describe('ConnectionPool over TLS', () => {
  // A self-signed certificate for "localhost" (test/fixtures/tls, valid for 100 years), made for these tests only.
  const cert = readFileSync(new URL('../fixtures/tls/localhost.crt', import.meta.url));
  const key = readFileSync(new URL('../fixtures/tls/localhost.key', import.meta.url));

  async function tlsServer(): Promise<{ port: number; servernames: (string | false | null)[] }> {
    const servernames: (string | false | null)[] = [];
    const server = createHttpsServer({ cert, key }, (req, res) =>
      req.resume().on('end', () => res.end('{"tls":true}')),
    );
    server.on('secureConnection', (socket) => servernames.push(socket.servername));
    servers.push(server as unknown as Server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, servernames };
  }

  it('verifies the server certificate by default: a self-signed one is refused', async () => {
    const { port } = await tlsServer();
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `https://localhost:${port}`, 1);
    expect(await send(pool, POST(`localhost:${port}`))).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('with the CA trusted, sends over TLS with SNI and keeps the connection alive', async () => {
    const { port, servernames } = await tlsServer();
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `https://localhost:${port}`, 1, { tls: { ca: cert } });
    for (let i = 0; i < 2; i++) expect(await send(pool, POST(`localhost:${port}`))).toMatchObject({ status: 200 });
    expect(servernames).toEqual(['localhost']);
  });
});
