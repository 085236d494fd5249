/**
 * A request is stamped as sent when our client writes it to the socket, not when it is
 * handed to the client, so a wait for a connection (or for a busy one) is not counted as service time.
 * Real HTTP on loopback (a stub that moves a manual clock when it receives a request), no timing.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createIdentify } from '../../src/client/api.js';
import { ConnectionPool } from '../../src/client/http1/index.js';
import { TokenProvider } from '../../src/client/token.js';
import { ManualClock } from '../../src/core/clock.js';
import { createRng } from '../../src/core/rng.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';
import { startStub, type Stub } from '../helpers/stub.js';

let stub: Stub | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  await stub?.close();
});

describe('send stamps', () => {
  it('stamps an attempt when its headers are written: a request queued behind a busy connection is sent when the connection frees', async () => {
    const clock = new ManualClock();
    // The model clock moves to 1000 when the stub receives the first request, before it answers.
    stub = await startStub({
      identify: (n) => (n === 1 && clock.advanceTo(1000), { status: 200, body: { entities: [] } }),
    });
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 1);
    const tokens = new TokenProvider({
      permit: LOOPBACK_PERMIT,
      baseUrl: stub.url,
      audience: stub.url,
      clientId: 'c',
      clientSecret: 's',
      credentialSource: 'test',
      clock,
      timeoutMs: 5000,
    });
    await tokens.get();
    const identify = createIdentify({
      baseUrl: stub.url,
      pool,
      tokens,
      clock,
      timeScale: 1,
      timeoutMs: 60_000,
      on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 1000 },
      rng: createRng(1),
    });
    // Both handed to the client at model time 0; the one connection carries the first, the second waits for it.
    const [first, second] = await Promise.all([identify('note one', 1), identify('note two', 2)]);
    expect(first).toMatchObject({ outcome: 'ok', sentAtMs: 0, lastSentAtMs: 0 });
    expect(second).toMatchObject({ outcome: 'ok', sentAtMs: 1000, lastSentAtMs: 1000, endAtMs: 1000 });
    expect(second!.tries).toEqual([{ sentAtMs: 1000, endAtMs: 1000, status: 200 }]);
  });

  it('keeps the hand-off time for an attempt whose headers were never written (no connection)', async () => {
    const clock = new ManualClock(500);
    stub = await startStub();
    const tokens = new TokenProvider({
      permit: LOOPBACK_PERMIT,
      baseUrl: stub.url,
      audience: stub.url,
      clientId: 'c',
      clientSecret: 's',
      credentialSource: 'test',
      clock,
      timeoutMs: 5000,
    });
    await tokens.get();
    // Port 1 on loopback: connection refused.
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, 'http://127.0.0.1:1', 1);
    const identify = createIdentify({
      baseUrl: 'http://127.0.0.1:1',
      pool,
      tokens,
      clock,
      timeScale: 1,
      timeoutMs: 60_000,
      on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 1000 },
      rng: createRng(1),
    });
    const r = await identify('note', 1);
    expect(r).toMatchObject({ outcome: 'refused', sentAtMs: 500, lastSentAtMs: 500 });
  });
});

describe('a token unfit for a header', () => {
  // A token a header cannot carry is refused where it enters (AUTH_FAILED), and the request that could not leave is
  // unsent, not an attempt: counting it as sent would blame a target that received nothing.
  it('is never written into a request: the token is an authentication failure, the request unsent, and nothing reaches the server', async () => {
    // A token endpoint that answers a token with a CR LF in it: written as is, it would add a header of the server's
    // choosing.
    stub = await startStub({
      token: () => ({
        status: 200,
        body: { access_token: 'lpmock_at_stub_x\r\nx-injected: yes', token_type: 'Bearer', expires_in: 3600 },
      }),
    });
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, stub.url, 1);
    const clock = new ManualClock();
    const tokens = new TokenProvider({
      permit: LOOPBACK_PERMIT,
      baseUrl: stub.url,
      audience: stub.url,
      clientId: 'c',
      clientSecret: 's',
      credentialSource: 'test',
      clock,
      timeoutMs: 5000,
    });
    const identify = createIdentify({
      baseUrl: stub.url,
      pool,
      tokens,
      clock,
      timeScale: 1,
      timeoutMs: 60_000,
      on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 1000 },
      rng: createRng(1),
    });
    expect(await identify('note', 1)).toBeUndefined();
    await expect(tokens.get()).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    expect(stub.counts.identification).toBe(0);
  });
});
