/**
 * Every answer of the pipeline endpoints says, in `Server-Timing: svc;dur=<model ms>`,
 * how long the request was in the modelled service: from its admission to the model time its
 * answer was due (the intended times of the mock's own model, not when its timers really fired).
 * The client counts that part faithfully and the rest (transport, its own lag) once, not k times.
 * The figures are model ms, so they do not depend on the time scale.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import { ManualClock } from '../../src/core/clock.js';
import { monotonicMs } from '../../src/core/clock.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { API_PATHS, DUE_HEADER, parseModelLag } from '../../src/spec/index.js';
import { bearer, getToken, postJson, type Reply } from '../helpers/http.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: MockServerOptions): Promise<{ s: MockServer; auth: Record<string, string> }> {
  const s = await startMockServer(options);
  servers.push(s);
  return { s, auth: bearer(await getToken(s)) };
}

const NOTE = 'Patient John Smith (MRN 12345678), DOB 04/12/1961; phone (555) 123-4567.';

/** The svc metric of a reply, model ms; fails the test when it is missing. */
function svcMs(reply: Reply): number {
  const header = String(reply.headers['server-timing'] ?? '');
  const match = /(?:^|,\s*)svc;dur=([\d.]+)(?:\s*,|$)/.exec(header);
  expect(match, `Server-Timing "${header}" has svc;dur=…`).not.toBeNull();
  return Number(match![1]);
}

describe('Server-Timing svc;dur on every pipeline answer', () => {
  it('200: the intended queue + service + hold, the same at every time scale (same seed)', async () => {
    const at = async (timeScale: number): Promise<number[]> => {
      const { s, auth } = await start({ profile: 'nominal', timeScale, seed: 7 });
      const out: number[] = [];
      for (let i = 0; i < 3; i++) {
        const reply = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
        expect(reply.status).toBe(200);
        const parts = Object.fromEntries(
          [...String(reply.headers['server-timing']).matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]),
        );
        expect(svcMs(reply)).toBeCloseTo(parts.queue! + parts.service! + parts.hold!, 0);
        out.push(svcMs(reply));
      }
      return out;
    };
    const k1 = await at(1);
    const k50 = await at(50);
    expect(k1.every((ms) => ms > 50)).toBe(true); // nominal service takes hundreds of model ms
    for (const [i, ms] of k50.entries()) expect(ms).toBeCloseTo(k1[i]!, 2);
  });

  it('time-scaled, told when the request was due: svc counts from then (its delay to the mock once), and the lag is said', async () => {
    // The model 200 wall ms behind (10,000 model ms): however busy the machine, the request reaches the mock within it.
    const { s, auth } = await start({ profile: 'nominal', timeScale: 50, seed: 7, modelLagWallMs: 200 });
    const plain = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    const parts = (reply: Reply): Record<string, number> =>
      Object.fromEntries(
        [...String(reply.headers['server-timing']).matchAll(/(\w+);dur=([\d.]+)/g)].map((m) => [m[1], Number(m[2])]),
      );
    // Not told: it enters when it comes, svc is the model's time from admission, as at k = 1, and its answer is not
    // held.
    expect(svcMs(plain)).toBeCloseTo(parts(plain).queue! + parts(plain).service! + parts(plain).hold!, 0);
    expect(parseModelLag(plain.headers['server-timing'])).toBeUndefined();
    // Told it was due 4 wall ms ago: admitted at its due time, svc = those 4 ms and the way to the mock, once (not 200
    // = 4 × 50), + the model's time.
    const told = await postJson(
      s.url + API_PATHS.identification,
      { text: NOTE },
      { ...auth, [DUE_HEADER]: (monotonicMs() - 4).toFixed(3) },
    );
    expect(told.status).toBe(200);
    const entryMs = svcMs(told) - (parts(told).queue! + parts(told).service! + parts(told).hold!);
    expect(entryMs).toBeGreaterThanOrEqual(4 - 0.1);
    expect(entryMs).toBeLessThan(200);
    // Admitted at its due time, 10,000 model ms before the model's frontier: its answer leaves that lag after its time.
    expect(parseModelLag(told.headers['server-timing'])).toBe(10_000);
    // Later than the model's lag: it enters when it comes, as if it said nothing (its delay is in the client's own
    // measurement).
    const behind = await start({ profile: 'nominal', timeScale: 50, seed: 7, modelLagWallMs: 1 });
    const late = await postJson(
      behind.s.url + API_PATHS.identification,
      { text: NOTE },
      { ...behind.auth, [DUE_HEADER]: (monotonicMs() - 50).toFixed(3) },
    );
    expect(parseModelLag(late.headers['server-timing'])).toBeUndefined();
    expect(svcMs(late)).toBeCloseTo(parts(late).queue! + parts(late).service! + parts(late).hold!, 0);
    // A due time too old to be this machine's client's (over a minute): taken as not said.
    const stale = await postJson(
      s.url + API_PATHS.identification,
      { text: NOTE },
      { ...auth, [DUE_HEADER]: (monotonicMs() - 120_000).toFixed(3) },
    );
    expect(parseModelLag(stale.headers['server-timing'])).toBeUndefined();
    expect(svcMs(stale)).toBeCloseTo(parts(stale).queue! + parts(stale).service! + parts(stale).hold!, 0);
  });

  it('200 on the stall profile: the hold to the end of the stall window, from the intended end of service', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({ profile: 'stall', clock });
    clock.advanceTo(8990); // inside the stall window [8 s, 10 s)
    const pending = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    // Service (20 ms) ends at 9010 inside the stall, held until 10,000: 1,010 ms after admission.
    clock.advanceTo(20_000);
    const reply = await pending;
    expect(reply.status).toBe(200);
    expect(svcMs(reply)).toBeCloseTo(1010, 3);
  });

  it('429 (rate limit and concurrency): 0, answered at admission', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({ profile: 'degraded', clock, limits: { maxInFlight: 1, queueLimit: 0 } });
    const url = s.url + API_PATHS.identification;
    const first = postJson(url, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    const refused = await postJson(url, { text: NOTE }, auth);
    expect(refused.status).toBe(429);
    expect(svcMs(refused)).toBe(0);
    clock.advanceTo(60_000);
    expect((await first).status).toBe(200);

    const tight = await start({ profile: 'zero', limits: { sustainedRpm: 1, burstRpm: 1, burstMinutes: 1 } });
    const replies: Reply[] = [];
    for (let i = 0; i < 3; i++)
      replies.push(
        await postJson(tight.s.url + API_PATHS.identification, { text: 'x' }, tight.auth).catch(
          () => ({ status: 0 }) as Reply,
        ),
      );
    const limited = replies.find((r) => r.status === 429);
    expect(limited?.json.error).toBe('rate_limited');
    expect(svcMs(limited!)).toBe(0);
  });

  it('504: exactly the service timeout, in model ms', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({ profile: 'degraded', clock, limits: { timeoutS: 0.5 } });
    const pending = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    clock.advanceTo(10_000);
    const reply = await pending;
    expect(reply.status).toBe(504);
    expect(svcMs(reply)).toBe(500);
  });

  it('500, malformed and slow faults: the service time, plus the slow extra', async () => {
    const timing = async (
      faults: NonNullable<MockServerOptions['faults']>,
    ): Promise<{ reply: Reply; serviceMs: number }> => {
      const clock = new ManualClock();
      const { s, auth } = await start({ profile: 'stall', clock, faults });
      const pending = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
      await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
      clock.advanceTo(7000); // before the first stall window: 20 ms of service, no hold
      return { reply: await pending, serviceMs: 20 };
    };
    const failed = await timing({ http500Rate: 1 });
    expect(failed.reply.status).toBe(500);
    expect(svcMs(failed.reply)).toBeCloseTo(failed.serviceMs, 3);
    const malformed = await timing({ malformedRate: 1 });
    expect(malformed.reply.status).toBe(200);
    expect(svcMs(malformed.reply)).toBeCloseTo(malformed.serviceMs, 3);
    const slow = await timing({ slowRate: 1, slowExtraMs: 3000 });
    expect(slow.reply.status).toBe(200);
    expect(svcMs(slow.reply)).toBeCloseTo(3020, 3);
  });

  it('400, 401 and 413 (no time in the service): 0', async () => {
    const { s, auth } = await start({ profile: 'zero' });
    const url = s.url + API_PATHS.identification;
    for (const reply of [
      await postJson(url, { note: 'x' }, auth),
      await postJson(url, { text: NOTE }, { authorization: 'Bearer nope' }),
      await postJson(url, { text: 'a'.repeat(854) }, auth),
      await postJson(s.url + API_PATHS.obfuscation, { text: 'x', entities: 'no' }, auth),
    ]) {
      expect([400, 401, 413]).toContain(reply.status);
      expect(svcMs(reply)).toBe(0);
    }
  });

  it('obfuscation answers carry it too', async () => {
    const { s, auth } = await start({ profile: 'nominal', timeScale: 10 });
    const reply = await postJson(
      s.url + API_PATHS.obfuscation,
      { text: NOTE, entities: [{ type: 'NAME', start: 8, end: 18 }] },
      auth,
    );
    expect(reply.status).toBe(200);
    expect(svcMs(reply)).toBeGreaterThan(0);
  });
});
