/** Connections opened ahead of the load, through undici to a real server on loopback. */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { WarmConnections } from '../../src/client/warm-connections.js';
import { type Stub, startStub } from '../helpers/stub.js';

let stub: Stub | undefined;
let agent: Agent | undefined;
let warm: WarmConnections | undefined;
afterEach(async () => {
  warm?.close();
  await agent?.close();
  await stub?.close();
});

describe('WarmConnections', () => {
  it('opens the connections before any request, and every request sent on one is answered', async () => {
    stub = await startStub();
    warm = new WarmConnections(stub.url);
    agent = new Agent({ connections: 20, pipelining: 1, connect: warm.connect });
    expect(await warm.open(8, 5000)).toBe(8);
    // 8 at once: each takes a warm connection (no new one is made). Bounded: a request stuck on its socket times out.
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(`${stub!.url}/entityextraction/pipelines/vendor-phi-identification`, { method: 'POST', body: '{}', dispatcher: agent!, signal: AbortSignal.timeout(2000) }).then(
          async (r) => (await r.body.text(), r.statusCode),
          (e: Error) => e.name,
        ),
      ),
    );
    expect(statuses).toEqual(Array(8).fill(200));
    expect(stub.counts.connections).toBe(8);
    expect(stub.counts.identification).toBe(8);
  });

  it('never hands out a warm connection the server has closed', async () => {
    // A server that closes the first 3 connections at once, and serves the others.
    let seen = 0;
    const server: Server = createServer((req, res) => req.resume().on('end', () => res.end('{}')));
    server.on('connection', (socket) => {
      if (++seen <= 3) socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      warm = new WarmConnections(url);
      agent = new Agent({ connections: 4, pipelining: 1, connect: warm.connect });
      expect(await warm.open(3, 5000)).toBe(3);
      // Bounded: the three FINs arrive within a few turns of the loop.
      for (let turns = 0; warm.available > 0 && turns < 1000; turns++) await new Promise((r) => setImmediate(r));
      expect(warm.available).toBe(0);
      const r = await request(url, { method: 'POST', body: '{}', dispatcher: agent, signal: AbortSignal.timeout(2000) });
      await r.body.text();
      expect(r.statusCode).toBe(200);
    } finally {
      await agent?.close();
      agent = undefined;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
