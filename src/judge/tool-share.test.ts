/**
 * The tool's share of each latency, bounded per request (RecordableEvent.toolMs): a stall of the embedded mock's
 * thread holds the few requests in flight then, not every request of the phase. A fail the service's own share
 * alone gives stands; one that the held requests make is inconclusive, as before.
 */
import { describe, expect, it } from 'vitest';

import { Slice } from '../recorder/index.js';
import { LATENCY_BANDS } from '../spec/index.js';
import { percentileCheck } from './percentile-check.js';
import type { GeneratorHealth } from './verdict-input.js';

const TARGET_MS = LATENCY_BANDS[0]!.p95TargetMs; // 2.5 s
const SPAN = { fromMs: 0, toMs: 300_000 };
/** What the stall held: 653 ms of wall time at k = 10, in model time. */
const STALL_MODEL_MS = 6530;

/** At k = 10 the embedded mock stood still 653 ms (wall) once: its worst adds 6.5 s of model time. */
const MOCK_STALLED: GeneratorHealth = {
  latenessInLatency: 0.1,
  eventLoopDelayP99Ms: 20,
  eventLoopDelayMaxMs: 40,
  mock: { modelMs: STALL_MODEL_MS - 200, maxWallMs: 653, p99ModelMs: STALL_MODEL_MS - 200, windowModelMs: 200 },
};

/**
 * 1,000 answers over 5 min whose own latencies spread evenly over [fromMs, toMs]; every `heldEvery`-th one was held by
 * the stall (its latency and its bound take the stall's model time more); `toolMs(i)`: each one's bound otherwise.
 */
function phaseSlice(
  fromMs: number,
  toMs: number,
  heldEvery: number,
  toolMs: (i: number) => number | undefined = () => 30,
): Slice {
  const slice = new Slice(SPAN);
  for (let i = 0; i < 1000; i++) {
    const t = i * 300;
    // Spread so that every time block sees the whole range.
    const own = fromMs + ((toMs - fromMs) * ((i * 389) % 1000)) / 999;
    const held = i % heldEvery === 0;
    const latency = own + (held ? STALL_MODEL_MS : 0);
    const bound = toolMs(i);
    slice.add({
      phase: 0,
      intendedAtMs: t,
      outcome: 'ok',
      firedAtMs: t + 1,
      ...(bound === undefined ? {} : { toolMs: bound + (held ? STALL_MODEL_MS : 0) }),
      result: { status: 200, attempts: 1, lastSentAtMs: t + 1, endAtMs: t + latency, retryAfterS: [] },
    });
  }
  return slice;
}

describe("a latency check and the tool's share of each request", () => {
  it('a degraded service fails on its own share: the few requests the stall held cannot explain it', () => {
    const check = percentileCheck(phaseSlice(3000, 6000, 50), 95, '<', TARGET_MS, MOCK_STALLED);
    expect(check.status).toBe('fail');
    expect(check.reason).toContain("with each request's own bound on the tool's share taken off it");
    expect(check.reason).toMatch(/p\(95\) \d\.\d\ds, interval \d\.\d\ds–\d\.\d\ds: still not < 2\.50s/);
  });

  it('the requests the stall held are what push p95 over: inconclusive, as before', () => {
    // A nominal service (0.5–2 s); one request in 10 held by the stall.
    const check = percentileCheck(phaseSlice(500, 2000, 10), 95, '<', TARGET_MS, MOCK_STALLED);
    expect(check.status).toBe('inconclusive');
    expect(check.reason).toContain('The embedded mock fell behind'.toLowerCase().slice(4));
  });

  it("a request whose bound is unknown counts as wholly the tool's: no fail rests on it", () => {
    // Degraded, but no request says its bound (events written before bounds were): as before, inconclusive.
    const check = percentileCheck(
      phaseSlice(3000, 6000, 50, () => undefined),
      95,
      '<',
      TARGET_MS,
      MOCK_STALLED,
    );
    expect(check.status).toBe('inconclusive');
  });

  it('a bound that covers the whole latency leaves no finding', () => {
    const check = percentileCheck(
      phaseSlice(3000, 6000, 50, () => 6000),
      95,
      '<',
      TARGET_MS,
      MOCK_STALLED,
    );
    expect(check.status).toBe('inconclusive');
  });
});
