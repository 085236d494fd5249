/**
 * A kept-alive connection the server closed while it sat idle (nginx's keepalive_timeout, which sends no Keep-Alive
 * header) meets our next request: a reset or an EOF before any byte of an answer. That is the client's stale
 * connection, never the service's error; the request is sent again only where it provably never left (the write
 * itself failed). Real sockets on loopback, a raw server that closes exactly where told: no timing race. A connection
 * must sit idle at least the floor (STALE_IDLE_FLOOR_MS) for its close to be an idle close: the stale cases wait
 * past it first (a delay that only makes that true; nothing asserts on elapsed time).
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { createIdentify } from '../../src/client/api.js';
import type { TokenSource } from '../../src/client/api-settings.js';
import { ConnectionPool, type Http1Response } from '../../src/client/http1/index.js';
import { STALE_IDLE_FLOOR_MS } from '../../src/client/http1/stale-rule.js';
import { ManualClock } from '../../src/core/clock.js';
import { createRng } from '../../src/core/rng.js';
import { type CloseWith, type ClosingServer, startClosingServer } from '../helpers/closing-server.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

let server: ClosingServer | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  pool = undefined;
  await server?.close();
  server = undefined;
});

const TOKEN = `lpmock_at_stale_${'x'.repeat(24)}`;
const tokens: TokenSource = {
  current: () => TOKEN,
  get: () => Promise.resolve(TOKEN),
  accepted: () => {},
  rejected: () => {},
};

function identifyAt(url: string, p: ConnectionPool): ReturnType<typeof createIdentify> {
  return createIdentify({
    baseUrl: url,
    pool: p,
    tokens,
    clock: new ManualClock(),
    timeScale: 1,
    timeoutMs: 10_000,
    on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 1000 },
    rng: createRng(1),
  });
}

/** Lets the pool's idle connections sit idle past the floor. */
const idlePastFloor = (): Promise<void> => sleep(STALE_IDLE_FLOOR_MS + 20);

/** One request through the pool: its response, or the code of the error that ended it. */
function send(p: ConnectionPool, url: string): Promise<Http1Response | string> {
  const bytes = `POST /x HTTP/1.1\r\nhost: ${new URL(url).host}\r\ncontent-length: 2\r\n\r\n{}`;
  return new Promise((resolve) =>
    p.request(
      bytes,
      10_000,
      () => {},
      (error, response) => resolve(response ?? String((error as { code?: string }).code)),
    ),
  );
}

describe.each<CloseWith>(['fin', 'rst'])('a reused connection closed (%s) on its next request', (how) => {
  it('ends that request as a stale connection, not a reset of the service', async () => {
    server = await startClosingServer((n) => (n === 2 ? how : undefined));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    expect(await send(pool, server.url)).toMatchObject({ status: 200 });
    await idlePastFloor();
    expect(await send(pool, server.url)).toBe('LOADPROOF_STALE_CONNECTION');
  });

  it('ends it as a reset of the service when the connection sat idle less than the floor', async () => {
    server = await startClosingServer((n) => (n === 2 ? how : undefined));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    expect(await send(pool, server.url)).toMatchObject({ status: 200 });
    expect(await send(pool, server.url)).toBe('ECONNRESET');
  });

  it('counts it stale_connection and does not send the POST again (it reached the server)', async () => {
    server = await startClosingServer((n) => (n === 2 ? how : undefined));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    const identify = identifyAt(server.url, pool);
    expect(await identify('one', 1)).toMatchObject({ outcome: 'ok', attempts: 1 });
    await idlePastFloor();
    const second = await identify('two', 2);
    expect(second).toMatchObject({ outcome: 'stale_connection', attempts: 1 });
    expect(second!.tries).toHaveLength(1);
    expect(second!.tries[0]!.status).toBeUndefined();
    // The server read it once, on the reused connection; never again.
    expect(server.seen.filter((r) => r.seq === 2)).toEqual([{ seq: 2, attempt: 1, connection: 1 }]);
  });
});

describe('a connection the server reset while it sat idle', () => {
  it('sends the request again on a fresh connection, as the next attempt, when the write itself failed', async () => {
    server = await startClosingServer(() => undefined);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    const identify = identifyAt(server.url, pool);
    expect(await identify('one', 1)).toMatchObject({ outcome: 'ok' });
    // The server resets the idle connection, and in the same turn (before our side has read the reset) the client
    // writes on it: the kernel refuses the bytes, so the request provably never left.
    server.sockets[0]!.resetAndDestroy();
    const second = await identify('two', 2);
    expect(second).toMatchObject({ outcome: 'ok', status: 200, attempts: 2 });
    expect(second!.tries.map((t) => t.status)).toEqual([undefined, 200]);
    expect(server.seen.filter((r) => r.seq === 2)).toEqual([{ seq: 2, attempt: 2, connection: 2 }]);
  });
});

describe('a resend beside another idle connection', () => {
  it('goes on a new connection, not on the other idle one', async () => {
    server = await startClosingServer(() => undefined);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 2);
    expect(await pool.open(2, 10_000)).toBe(2);
    const identify = identifyAt(server.url, pool);
    expect(await identify('one', 1)).toMatchObject({ outcome: 'ok' });
    // The connection just used is taken again (the most recently used); the server resets it while it is idle.
    const used = server.seen[0]!.connection;
    server.sockets[used - 1]!.resetAndDestroy();
    expect(await identify('two', 2)).toMatchObject({ outcome: 'ok', attempts: 2 });
    expect(server.seen.filter((r) => r.seq === 2)).toEqual([{ seq: 2, attempt: 2, connection: 3 }]);
  });
});

describe('a connection that did not sit idle, closed before its answer', () => {
  it('a new one: the service, a reset', async () => {
    server = await startClosingServer((n) => (n === 1 ? 'rst' : undefined));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    expect(await identifyAt(server.url, pool)('one', 1)).toMatchObject({ outcome: 'reset', attempts: 1 });
  });

  it.each<CloseWith>(['fin', 'rst'])(
    'one handed to a waiting request the moment it answered (%s): the service, a reset',
    async (how) => {
      server = await startClosingServer((n) => (n === 2 ? how : undefined));
      pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
      const identify = identifyAt(server.url, pool);
      // One connection: the second waits for the first's answer, and is written on it at once.
      const [first, second] = await Promise.all([identify('one', 1), identify('two', 2)]);
      expect(first).toMatchObject({ outcome: 'ok' });
      expect(second).toMatchObject({ outcome: 'reset', attempts: 1 });
    },
  );
});

describe('after a stale connection', () => {
  it('the pool reuses no connection idle as long as that one was: the next request as far apart gets a new one', async () => {
    // The server closes every connection's second request, as a gateway whose idle timeout the reuse crossed.
    server = await startClosingServer((n) => (n === 2 ? 'fin' : undefined));
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 1);
    expect(await send(pool, server.url)).toMatchObject({ status: 200 });
    const idleFrom = performance.now();
    await idlePastFloor();
    const idleMs = performance.now() - idleFrom; // at least the pool's idle time, however busy the machine
    expect(await send(pool, server.url)).toBe('LOADPROOF_STALE_CONNECTION');
    // A new connection, answered, then idle as long again: not reused (it would meet the same close), so answered.
    expect(await send(pool, server.url)).toMatchObject({ status: 200 });
    await sleep(idleMs);
    expect(await send(pool, server.url)).toMatchObject({ status: 200 });
    expect(server.seen.map((r) => r.connection)).toEqual([1, 1, 2, 3]);
  });
});
