/** One planned request through the client against the real mock: each outcome, retries, 401 renewal. */
import { afterEach, describe, expect, it } from 'vitest';

import { type ApiClientSettings, createIdentify } from '../../src/client/api.js';
import { ConnectionPool } from '../../src/client/http1/index.js';
import { TokenProvider } from '../../src/client/token.js';
import { ManualClock, ScaledClock } from '../../src/core/clock.js';
import { createRng } from '../../src/core/rng.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

let server: MockServer | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  pool = undefined;
  await server?.close();
  server = undefined;
});

const NOTE = 'Patient John Smith (MRN 12345678), DOB 04/12/1961.';
/**
 * At k = 1000 the usual 16 s model deadline is 16 ms of wall time, which a busy machine can miss
 * (a timeout instead of the 429 under test): these tests give each attempt 10 s of wall time.
 */
const GENEROUS_TIMEOUT_MS = 10_000_000;

/** A mock and a client sharing the same time scale k (each with its own scaled clock). */
async function setup(mock: MockServerOptions, client: Partial<ApiClientSettings> = {}) {
  const timeScale = mock.timeScale ?? 1;
  server = await startMockServer({ profile: 'zero', ...mock });
  pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 16);
  const clock = new ScaledClock(timeScale);
  const tokens = new TokenProvider({
    permit: LOOPBACK_PERMIT,
    baseUrl: server.url,
    audience: server.audience,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    credentialSource: 'test',
    clock,
    timeoutMs: 5000,
  });
  const identify = createIdentify({
    baseUrl: server.url,
    pool,
    tokens,
    clock,
    timeScale,
    timeoutMs: 16_000,
    on429: { policy: 'record', maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 },
    rng: createRng(1),
    ...client,
  });
  return { s: server, identify, tokens };
}

describe('createIdentify', () => {
  // A token a header cannot carry, at the client's depth: a request that cannot leave is unsent, not an attempt with
  // outcome error.
  it('counts nothing as sent when the token cannot go in a header: unsent, and the server sees nothing', async () => {
    const unsafe = {
      current: () => 'lpmock_at_x\r\nx-injected: 1',
      get: async () => 'lpmock_at_x\r\nx-injected: 1',
      accepted: () => {},
      rejected: () => {},
    };
    const { s, identify } = await setup(
      {},
      { tokens: unsafe, on429: { policy: 'retry', maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 30_000 } },
    );
    expect(await identify(NOTE, 1)).toBeUndefined();
    expect(s.stats().requests.identification.received).toBe(0);
  });

  it('returns ok with one attempt and model times in order', async () => {
    const { identify } = await setup({});
    const r = (await identify(NOTE, 1))!;
    expect(r).toMatchObject({ outcome: 'ok', status: 200, attempts: 1, retryAfterS: [] });
    expect(r.sentAtMs).toBeLessThanOrEqual(r.lastSentAtMs);
    expect(r.lastSentAtMs).toBeLessThanOrEqual(r.endAtMs);
  });

  it('records a 429 as one outcome with its Retry-After when the policy is record', async () => {
    const { identify } = await setup({ limits: { sustainedRpm: 1, burstRpm: 1 } });
    await identify(NOTE, 2);
    const r = (await identify(NOTE, 3))!;
    expect(r).toMatchObject({ outcome: 'http_429', status: 429, attempts: 1 });
    expect(r.retryAfterS[0]).toBeGreaterThanOrEqual(59);
  });

  it('retries a 429 no sooner than Retry-After (model time), and succeeds', async () => {
    // 1 rpm: the retry must wait about 60 model seconds. At k = 20 that is 3 s of wall time, far more than a busy
    // machine's scheduling jitter: at k = 1000 (60 ms of wall time) a request sent late on a loaded machine found
    // the bucket refilled and never met the 429 under test. The mock's own 15 s timeout is raised to an hour of
    // model time so that no answer under test becomes a 504.
    const { identify, s } = await setup(
      { timeScale: 20, limits: { sustainedRpm: 1, burstRpm: 1, timeoutS: 3600 } },
      {
        on429: { policy: 'retry', maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 90_000 },
        timeoutMs: GENEROUS_TIMEOUT_MS,
      },
    );
    await identify(NOTE, 4);
    const r = (await identify(NOTE, 5))!;
    expect(r).toMatchObject({ outcome: 'ok', attempts: 2 });
    expect(r.lastSentAtMs - r.sentAtMs).toBeGreaterThanOrEqual(r.retryAfterS[0]! * 1000);
    expect(s.stats().requests.identification.byStatus).toEqual({ '200': 2, '429': 1 });
  });

  it('records every attempt: its send and answer times and status, as the server saw them', async () => {
    // k = 20, as above: the second request must meet the empty bucket (a 429), whatever the machine's load.
    const { identify, s } = await setup(
      { timeScale: 20, limits: { sustainedRpm: 1, burstRpm: 1, timeoutS: 3600 } },
      {
        on429: { policy: 'retry', maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 90_000 },
        timeoutMs: GENEROUS_TIMEOUT_MS,
      },
    );
    const first = (await identify(NOTE, 21))!;
    expect(first.tries).toEqual([{ sentAtMs: first.lastSentAtMs, endAtMs: first.endAtMs, status: 200 }]);
    const r = (await identify(NOTE, 22))!;
    expect(r.tries.map((t) => t.status)).toEqual([429, 200]);
    const [refused, served] = r.tries as [(typeof r.tries)[0], (typeof r.tries)[0]];
    expect(refused.sentAtMs).toBeGreaterThanOrEqual(r.sentAtMs);
    expect(refused.endAtMs).toBeGreaterThanOrEqual(refused.sentAtMs);
    // The retry went out no sooner than Retry-After after the 429 came back.
    expect(served.sentAtMs - refused.endAtMs).toBeGreaterThanOrEqual(r.retryAfterS[0]! * 1000);
    // The retry's wait, as the client chose it (Retry-After), is recorded on the try it preceded.
    expect(served).toEqual({ sentAtMs: r.lastSentAtMs, endAtMs: r.endAtMs, status: 200, waitMs: expect.any(Number) });
    expect(served.waitMs).toBeGreaterThanOrEqual(r.retryAfterS[0]! * 1000);
    expect(served.waitMs).toBeLessThanOrEqual(served.sentAtMs - refused.endAtMs);
    const log = (await (await fetch(`${s.url}/__mock/log`)).json()) as {
      entries: { seq: number; attempt: number; status: number }[];
    };
    expect(log.entries.filter((e) => e.seq === 22).map((e) => [e.attempt, e.status])).toEqual([
      [1, 429],
      [2, 200],
    ]);
  });

  it("reads each answer's model time in the service (Server-Timing svc) when told to, and only then", async () => {
    const read = await setup({ profile: 'stall', timeScale: 20 }, { readServerTiming: true });
    const r = (await read.identify(NOTE, 1))!;
    expect(r.status).toBe(200);
    // The stall profile serves in 20 model ms; a stall window may hold the answer up to 2 s more.
    expect(r.tries[0]!.serviceMs).toBeGreaterThanOrEqual(20);
    expect(r.tries[0]!.serviceMs).toBeLessThanOrEqual(2020);
    await server?.close();
    pool?.close();
    const ignore = await setup({ profile: 'stall', timeScale: 20 });
    expect((await ignore.identify(NOTE, 2))!.tries[0]).not.toHaveProperty('serviceMs');
  });

  it('gives up after maxAttempts, ending with the last 429', async () => {
    // 1 rpm and three requests at once: one is served; the other two wait a minute (model time) and
    // retry together, but only one token came back, so one of them ends on its second 429. At k = 20 the minute is
    // 3 s of wall time: the two retries leave within far less of each other, however busy the machine.
    const { identify, s } = await setup(
      { timeScale: 20, limits: { sustainedRpm: 1, burstRpm: 1, timeoutS: 3600 } },
      {
        on429: { policy: 'retry', maxAttempts: 2, baseDelayMs: 1000, maxDelayMs: 90_000 },
        timeoutMs: GENEROUS_TIMEOUT_MS,
      },
    );
    const results = await Promise.all([identify(NOTE, 6), identify(NOTE, 7), identify(NOTE, 8)]);
    const summary = results.map((r) => `${r!.outcome}/${r!.attempts}`).sort();
    expect(summary).toEqual(['http_429/2', 'ok/1', 'ok/2']);
    expect(s.stats().requests.identification.byStatus).toEqual({ '200': 2, '429': 3 });
  });

  it("lets many requests wait to retry at once without a listener warning on the run's stop signal", async () => {
    // 12 requests at 1 rpm: 11 get a 429 and wait (model time) to retry, each listening to the stop signal.
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const stop = new AbortController();
      const { identify } = await setup(
        { timeScale: 1000, limits: { sustainedRpm: 1, burstRpm: 1, timeoutS: 3600 } },
        {
          on429: { policy: 'retry', maxAttempts: 2, baseDelayMs: 1000, maxDelayMs: 90_000 },
          timeoutMs: GENEROUS_TIMEOUT_MS,
          stop: stop.signal,
        },
      );
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => identify(NOTE, 20 + i)));
      expect(results.every((r) => r !== undefined)).toBe(true);
      // A warning is emitted on the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('times out on its own deadline', async () => {
    const { identify } = await setup({ profile: 'nominal' }, { timeoutMs: 50 });
    expect(await identify(NOTE, 9)).toMatchObject({ outcome: 'timeout', attempts: 1 });
  });

  it.each([
    { faults: { resetRate: 1 }, outcome: 'reset', status: undefined },
    { faults: { malformedRate: 1 }, outcome: 'malformed', status: 200 },
    { faults: { http500Rate: 1 }, outcome: 'http_other', status: 500 },
  ])('classifies an injected fault as $outcome', async ({ faults, outcome, status }) => {
    const { identify } = await setup({ faults });
    const r = (await identify(NOTE, 10))!;
    expect(r.outcome).toBe(outcome);
    expect(r.status).toBe(status);
  });

  it('with on429: retry, gets a new token after a 401 and sends again, as one of its attempts', async () => {
    // The mock's clock is moved by hand past the token's lifetime; the client's clock is not, so the
    // client still holds the token it believes fresh, and learns from the 401.
    const mockClock = new ManualClock();
    const { identify, tokens, s } = await setup(
      { clock: mockClock, tokenTtlS: 60 },
      { on429: { policy: 'retry', maxAttempts: 2, baseDelayMs: 1000, maxDelayMs: 30_000 } },
    );
    await tokens.get();
    mockClock.advanceTo(61_000);
    const r = await identify(NOTE, 11);
    expect(r).toMatchObject({ outcome: 'ok', status: 200, attempts: 2 });
    expect(s.stats().requests.token.byStatus).toEqual({ '200': 2 });
    expect(s.stats().requests.identification.byStatus).toEqual({ '200': 1, '401': 1 });
  });

  it('with on429: record (one attempt), records a 401 as a failed request and renews the token for the next', async () => {
    const mockClock = new ManualClock();
    const { identify, tokens, s } = await setup({ clock: mockClock, tokenTtlS: 60 });
    await tokens.get();
    mockClock.advanceTo(61_000);
    expect(await identify(NOTE, 12)).toMatchObject({ outcome: 'http_other', status: 401, attempts: 1 });
    expect(await identify(NOTE, 13)).toMatchObject({ outcome: 'ok', status: 200, attempts: 1 });
    expect(s.stats().requests.token.byStatus).toEqual({ '200': 2 });
    expect(s.stats().requests.identification.byStatus).toEqual({ '200': 1, '401': 1 });
  });

  it('starts no attempt once the run is stopped, and ends a wait for a retry at once', async () => {
    const stop = new AbortController();
    const { identify, s } = await setup(
      { limits: { sustainedRpm: 1, burstRpm: 1 } },
      { on429: { policy: 'retry', maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 90_000 }, stop: stop.signal },
    );
    await identify(NOTE, 14);
    // The second request gets a 429 with Retry-After of about a minute, and waits for it (k = 1).
    const pending = identify(NOTE, 15);
    while (s.stats().requests.identification.received < 2) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    expect(await pending).toMatchObject({ outcome: 'http_429', attempts: 1 });
    expect(await identify(NOTE, 16)).toBeUndefined();
    expect(s.stats().requests.identification.received).toBe(2);
  });

  it('cancels an attempt waiting for its answer when the drain ends (abandoned)', async () => {
    const cancel = new AbortController();
    const { identify } = await setup(
      { profile: 'nominal', faults: { slowRate: 1, slowExtraMs: 60_000 } },
      { cancel: cancel.signal },
    );
    const pending = identify(NOTE, 17);
    setTimeout(() => cancel.abort(), 50);
    expect(await pending).toMatchObject({ outcome: 'abandoned', attempts: 1 });
  });

  it('says refused when nothing listens', async () => {
    const { identify, tokens, s } = await setup({});
    await tokens.get();
    await s.close();
    expect(await identify(NOTE, 18)).toMatchObject({ outcome: 'refused', attempts: 1 });
  });
});
