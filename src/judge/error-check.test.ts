/**
 * The error check: every phase judges rate(errors) — every planned request that failed,
 * k6's http_req_failed — on the whole phase, warm-up included, by default at < 1 %.
 */
import { describe, expect, it } from 'vitest';

import { ERRORS, NO_429 } from '../../test/helpers/judge-phase.js';
import type { CountedOutcome } from '../core/index.js';
import { Slice } from '../recorder/index.js';
import { parseErrorCheck, type Threshold } from '../scenario/index.js';
import { evaluateVerdict } from './verdict.js';
import type { GeneratorHealth } from './verdict-input.js';

function sliceWith(outcomes: Partial<Record<CountedOutcome, number>>): Slice {
  const slice = new Slice();
  for (const [outcome, n] of Object.entries(outcomes) as [CountedOutcome, number][]) {
    for (let i = 0; i < n; i++) {
      const status =
        outcome === 'ok'
          ? 200
          : outcome === 'http_429'
            ? 429
            : outcome === 'http_504'
              ? 504
              : outcome === 'http_other'
                ? 500
                : undefined;
      const sent = outcome !== 'dropped' && outcome !== 'unsent';
      slice.add({
        phase: 0,
        intendedAtMs: 0,
        outcome,
        ...(sent
          ? {
              firedAtMs: 0,
              result: {
                ...(status === undefined ? {} : { status }),
                attempts: 1,
                lastSentAtMs: 0,
                endAtMs: 100,
                retryAfterS: [],
              },
            }
          : {}),
      });
    }
  }
  return slice;
}

const DEFAULT = ERRORS;
const errorCheck = (slice: Slice, check: Threshold | null = DEFAULT, generator: GeneratorHealth = {}) =>
  evaluateVerdict({
    phases: [
      {
        name: 'p',
        bands: [],
        planned: 1000,
        steady: new Slice(),
        all: slice,
        envelope: NO_429,
        thresholds: [],
        errorCheck: check,
      },
    ],
    documentedTargets: false,
    generator,
  }).checks.find((c) => c.id === 'error_rate');

describe('the error check', () => {
  it('counts every failed request over those sent or dropped; 429s and unsent requests are not errors', () => {
    const c = errorCheck(
      sliceWith({
        ok: 940,
        http_429: 20,
        http_504: 1,
        http_other: 1,
        timeout: 1,
        reset: 1,
        refused: 1,
        malformed: 1,
        error: 1,
        abandoned: 1,
        dropped: 2,
        unsent: 30,
      }),
    );
    expect(c).toMatchObject({
      what: 'errors: rate < 1%',
      status: 'fail',
      observed: 10 / 970,
      reason: '10 of 970 (1.03 %)',
    });
  });

  it('passes a phase whose failures stay under the rate, on the whole phase', () => {
    expect(errorCheck(sliceWith({ ok: 995, http_other: 5 }))).toMatchObject({
      status: 'pass',
      reason: '5 of 1000 (0.50 %)',
    });
  });

  it('cannot pass a phase that sent nothing', () => {
    expect(errorCheck(sliceWith({ unsent: 10 }))).toMatchObject({
      status: 'inconclusive',
      reason: 'no request to take a rate of',
    });
  });

  it('is absent when the scenario says none', () => {
    expect(parseErrorCheck('none')).toBeNull();
    expect(errorCheck(sliceWith({ http_other: 5 }), null)).toBeUndefined();
  });

  it.each(['rate < 0.01', 'rate <= 2%', 'count == 0'])('reads %s in the k6 style', (text) => {
    expect(parseErrorCheck(text)).toMatchObject({ source: `errors: ${text}` });
  });

  it.each(['p(95) < 1s', 'rate < 200%', 'errors < 1%', ''])('refuses %j', (text) => {
    expect(parseErrorCheck(text)).toHaveProperty('problem');
  });
});

describe('requests that got no answer are judged as worse than any target', () => {
  const ok = (slice: Slice, n: number, latencyMs: number): void => {
    for (let i = 0; i < n; i++)
      slice.add({
        phase: 0,
        intendedAtMs: i,
        outcome: 'ok',
        firedAtMs: i,
        result: { status: 200, attempts: 1, lastSentAtMs: i, endAtMs: i + latencyMs, retryAfterS: [] },
      });
  };
  const p95Check = (slice: Slice) =>
    evaluateVerdict({
      phases: [
        {
          name: 'p',
          bands: [
            {
              band: { band: 'sustained', upToRpm: 100, p95TargetMs: 2500, specWording: '' },
              fromRpm: 100,
              toRpm: 100,
              steadyPlanned: 1000,
              steady: slice,
            },
          ],
          planned: 1000,
          steady: slice,
          all: slice,
          envelope: NO_429,
          thresholds: [],
          errorCheck: null,
        },
      ],
      documentedTargets: true,
      generator: {},
    }).checks.find((c) => c.id === 'latency_p95_target')!;

  it('fails p95 when 10 % of the arrivals were dropped, however fast the answered ones came back (it passed before)', () => {
    const slice = new Slice({ fromMs: 0, toMs: 1000 });
    for (let i = 0; i < 1000; i++) {
      if (i % 10 === 0) slice.add({ phase: 0, intendedAtMs: i, outcome: 'dropped' });
      else
        slice.add({
          phase: 0,
          intendedAtMs: i,
          outcome: 'ok',
          firedAtMs: i,
          result: { status: 200, attempts: 1, lastSentAtMs: i, endAtMs: i + 100, retryAfterS: [] },
        });
    }
    const c = p95Check(slice);
    expect(c.status).toBe('fail');
    expect(c.reason).toMatch(/^p\(95\) unanswered, /);
    expect(slice.unanswered).toBe(100);
  });

  it('never passes p95 when the drops came all at once: the spell of drops leaves it unsure, not fine', () => {
    const slice = new Slice({ fromMs: 0, toMs: 1000 });
    ok(slice, 900, 100);
    for (let i = 0; i < 100; i++) slice.add({ phase: 0, intendedAtMs: 900 + i, outcome: 'dropped' });
    expect(p95Check(slice).status).not.toBe('pass');
  });

  it('counts requests cancelled unanswered the same way, and a timeout at its time', () => {
    const slice = new Slice();
    ok(slice, 900, 100);
    for (let i = 0; i < 50; i++)
      slice.add({
        phase: 0,
        intendedAtMs: i,
        outcome: 'abandoned',
        firedAtMs: i,
        result: { attempts: 1, lastSentAtMs: i, endAtMs: i + 1, retryAfterS: [] },
      });
    for (let i = 0; i < 50; i++)
      slice.add({
        phase: 0,
        intendedAtMs: i,
        outcome: 'timeout',
        firedAtMs: i,
        result: { attempts: 1, lastSentAtMs: i, endAtMs: i + 30_000, retryAfterS: [] },
      });
    expect(slice.latencyExcl429.count).toBe(1000);
    expect(slice.latencyExcl429.percentileMs(94)).toBeCloseTo(30_000, -2);
    expect(slice.latencyExcl429.percentileMs(96)).toBeGreaterThan(1e8);
    expect(p95Check(slice).status).toBe('fail');
  });
});

describe('a spell of unanswered requests in one time block (review)', () => {
  /**
   * 200 rpm for 5 min after a 30 s warm-up: every answer took `latencyMs`, and `drops` arrivals just after the warm-up
   * were dropped.
   */
  function phaseWith(latencyMs: number, drops: number): Slice {
    const slice = new Slice({ fromMs: 30_000, toMs: 300_000 });
    for (let i = 0; i < 900; i++) {
      const t = 30_000 + i * 300;
      if (i < drops) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
      else
        slice.add({
          phase: 0,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t,
          result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: t + latencyMs, retryAfterS: [] },
        });
    }
    return slice;
  }
  const burstCheck = (slice: Slice) =>
    evaluateVerdict({
      phases: [
        {
          name: 'p',
          bands: [
            {
              band: { band: 'burst', upToRpm: 200, p95TargetMs: 4000, specWording: '' },
              fromRpm: 200,
              toRpm: 200,
              steadyPlanned: 900,
              steady: slice,
            },
          ],
          planned: 900,
          steady: slice,
          all: slice,
          envelope: NO_429,
          thresholds: [],
          errorCheck: null,
        },
      ],
      documentedTargets: true,
      generator: {},
    }).checks.find((c) => c.id === 'latency_p95_target')!;

  it('keeps a clear fail a fail: 8 drops in one block made the interval 0 ms–469,493 s before', () => {
    const c = burstCheck(phaseWith(10_000, 8));
    expect(c.status).toBe('fail');
    expect(c.interval![0]).toBeGreaterThanOrEqual(4000);
  });

  it('keeps the interval of a fast service within reach of its target', () => {
    const c = burstCheck(phaseWith(1000, 8));
    expect(c.status).not.toBe('fail');
    expect(c.interval![1]).toBeLessThan(20_000);
  });
});

describe('drops while the generator was late (its stall, not the service, may have filled the slots)', () => {
  // 200 rpm, 4 s target, maxInFlight 128: a service meeting its target holds about 13 in flight, far under the cap.
  const inFlight = { maxInFlight: 128, neededAtTarget: 13.3, targetMs: 4000 };
  /**
   * 1,000 arrivals, `drops` of them dropped at the cap (spread over the phase), the rest answered in 1 s, each sent
   * `lagMs` late.
   */
  function withDrops(drops: number, lagMs: number): Slice {
    const slice = new Slice({ fromMs: 0, toMs: 300_000 });
    for (let i = 0; i < 1000; i++) {
      const t = i * 300;
      if ((i * drops) % 1000 < drops) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
      else
        slice.add({
          phase: 0,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t + lagMs,
          result: { status: 200, attempts: 1, lastSentAtMs: t + lagMs, endAtMs: t + lagMs + 1000, retryAfterS: [] },
        });
    }
    return slice;
  }
  const checks = (slice: Slice, generator: Parameters<typeof evaluateVerdict>[0]['generator']) =>
    evaluateVerdict({
      phases: [
        {
          name: 'burst',
          bands: [
            {
              band: { band: 'burst', upToRpm: 200, p95TargetMs: 4000, specWording: '' },
              fromRpm: 200,
              toRpm: 200,
              steadyPlanned: 1000,
              steady: slice,
            },
          ],
          planned: 1000,
          inFlight,
          steady: slice,
          all: slice,
          envelope: NO_429,
          thresholds: [],
          errorCheck: DEFAULT,
        },
      ],
      documentedTargets: true,
      generator,
    }).checks.filter((c) => c.id === 'error_rate' || c.id === 'latency_p95_target');

  it('a fail resting on drops made while the event loop stood still (0.8 s of wall time at k = 60) is inconclusive, naming the lateness, not a fail of the service', () => {
    // As a busy machine left it: event-loop delay p99 514 ms and max 805 ms of wall time, at k = 60 (model ms = wall ×
    // 60).
    const stalled = checks(withDrops(379, 0), {
      eventLoopDelayP99Ms: 514 * 60,
      eventLoopDelayMaxMs: 805 * 60,
      latenessInLatency: 1 / 60,
    });
    expect(stalled.map((c) => [c.id, c.status])).toEqual([
      ['latency_p95_target', 'inconclusive'],
      ['error_rate', 'inconclusive'],
    ]);
    // 805 ms × 60 = 48.3 s of model time at 200 rpm: 160 arrivals overdue, more than the 128 slots.
    for (const c of stalled)
      expect(c.reason).toMatch(
        /, but 379 requests were dropped at the client's maxInFlight while the tool was late: its stalls \(the generator's worst, 48\.30s of model time\) leave 160 arrivals overdue at the phase's peak rate of 199\.5 rpm, on top of the 3 slots its answers hold \(their mean service time 1\.00s, at most the target of 4\.00s\): together more than the 128 slots, so the drops may be the tool's, not the service's$/,
      );
  });

  it("drops while the embedded mock stood still (0.8 s of wall time at k = 60) are the tool's too: inconclusive, naming the mock", () => {
    // The mock held every answer while it stood still: 785 ms beyond its window × 60 = 47.1 s of model time at 200 rpm
    // leaves 156 arrivals overdue, on top of the 3 slots its answers hold.
    const mock = { modelMs: 785 * 60, maxWallMs: 805 };
    const c = checks(withDrops(379, 0), { latenessInLatency: 1 / 60, mock }).find((x) => x.id === 'error_rate')!;
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toMatch(
      /, but 379 requests were dropped at the client's maxInFlight while the tool was late: its stalls \(the embedded mock's, 785ms of wall time beyond its window \(47\.10s of model time\)\) leave 156 arrivals overdue at the phase's peak rate of 199\.5 rpm, on top of the 3 slots its answers hold \(their mean service time 1\.00s, at most the target of 4\.00s\): together more than the 128 slots, so the drops may be the tool's, not the service's$/,
    );
    // A stall of a fraction of a slot excuses nothing.
    const brief = { latenessInLatency: 1 / 60, mock: { modelMs: 0, maxWallMs: 15 } };
    expect(checks(withDrops(379, 0), brief).find((x) => x.id === 'error_rate')!.status).toBe('fail');
  });

  it('a late send that could fill the slots by itself gates the same way; a generator on time leaves the fail standing', () => {
    // 40 s of send lag at 200 rpm: 133 overdue arrivals, more than the 128 slots.
    expect(checks(withDrops(100, 40_000), {}).map((c) => [c.id, c.status])).toEqual([
      ['latency_p95_target', 'fail'],
      ['error_rate', 'inconclusive'],
    ]);
    expect(checks(withDrops(100, 0), {}).map((c) => c.status)).toEqual(['fail', 'fail']);
    // Within budget (1 % of 4 s: 40 ms), late or not, the drops are the service's.
    expect(
      checks(withDrops(100, 30), { eventLoopDelayP99Ms: 30, eventLoopDelayMaxMs: 35 }).map((c) => c.status),
    ).toEqual(['fail', 'fail']);
  });

  it('lateness too short to fill the slots excuses no drop (review): 200 ms of send lag at 200 rpm is 0.67 of a slot', () => {
    expect(checks(withDrops(100, 200), {}).map((c) => c.status)).toEqual(['fail', 'fail']);
    // The stall stacks on the 3.3 slots the answers (1 s each) hold at 200 rpm. Just under the 128 slots
    // ((37 s + 1 s) × 200 rpm = 126.7), over budget by far: the fail stands.
    expect(
      checks(withDrops(100, 0), { eventLoopDelayP99Ms: 37_000, eventLoopDelayMaxMs: 37_000 }).find(
        (c) => c.id === 'error_rate',
      )!.status,
    ).toBe('fail');
    // Just over (38 s: 130): the drops may be the generator's.
    expect(
      checks(withDrops(100, 0), { eventLoopDelayP99Ms: 38_000, eventLoopDelayMaxMs: 38_000 }).find(
        (c) => c.id === 'error_rate',
      )!.status,
    ).toBe('inconclusive');
  });

  it('a slow service with drops fails, lateness or not (review repro): 200 rpm, 4 s target, every answer 30 s, 25 % dropped, event-loop p99 41 ms at k = 1', () => {
    const slice = new Slice({ fromMs: 0, toMs: 300_000 });
    for (let i = 0; i < 1000; i++) {
      const t = i * 300;
      if (i % 4 === 0) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
      else
        slice.add({
          phase: 0,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t,
          result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: t + 30_000, retryAfterS: [] },
        });
    }
    const found = checks(slice, { eventLoopDelayP99Ms: 41, eventLoopDelayMaxMs: 120 });
    expect(found.map((c) => [c.id, c.status])).toEqual([
      ['latency_p95_target', 'fail'],
      ['error_rate', 'fail'],
    ]);
    // The answered requests alone fail the latency target: its fail never rests on the drops, even under a cap of 3.
    const capped = evaluateVerdict({
      phases: [
        {
          name: 'burst',
          bands: [
            {
              band: { band: 'burst', upToRpm: 200, p95TargetMs: 4000, specWording: '' },
              fromRpm: 200,
              toRpm: 200,
              steadyPlanned: 1000,
              steady: slice,
            },
          ],
          planned: 1000,
          inFlight: { maxInFlight: 3, neededAtTarget: 13.3, targetMs: 4000 },
          steady: slice,
          all: slice,
          envelope: NO_429,
          thresholds: [],
          errorCheck: DEFAULT,
        },
      ],
      documentedTargets: true,
      generator: {},
    }).checks.find((c) => c.id === 'latency_p95_target')!;
    expect(capped.status).toBe('fail');
  });

  it('a fail the answered requests cause alone stands, late generator or not', () => {
    // 5 % of the answered requests failed outright (500): over 1 % without the drops too.
    const slice = withDrops(100, 200);
    for (let i = 0; i < 50; i++)
      slice.add({
        phase: 0,
        intendedAtMs: i,
        outcome: 'http_other',
        firedAtMs: i,
        result: { status: 500, attempts: 1, lastSentAtMs: i, endAtMs: i + 10, retryAfterS: [] },
      });
    expect(checks(slice, {}).find((c) => c.id === 'error_rate')!.status).toBe('fail');
  });
});

describe('the error check beside an embedded mock that fell behind', () => {
  // At k = 20 a timeout is judged on the attempt's model time, which the mock's own stall can inflate by `modelMs`.
  const behind: GeneratorHealth = { latenessInLatency: 1 / 20, mock: { modelMs: 4000, maxWallMs: 220 } };

  it('does not fail the service on timeouts the mock could have caused: inconclusive, and says why', () => {
    const c = errorCheck(sliceWith({ ok: 980, timeout: 15, http_other: 5 }), DEFAULT, behind);
    expect(c).toMatchObject({ status: 'inconclusive' });
    expect(c!.reason).toBe(
      "20 of 1000 (2.00 %), but 15 of them timed out while the embedded mock fell behind by up to 220ms (wall), which could add 4.00s of model time to a latency — not the service's; without them it would pass",
    );
  });

  it('keeps a fail that stands without the timeouts, and a fail beside a mock that kept up', () => {
    expect(errorCheck(sliceWith({ ok: 970, timeout: 15, http_other: 15 }), DEFAULT, behind)?.status).toBe('fail');
    const kept: GeneratorHealth = { latenessInLatency: 1 / 20, mock: { modelMs: 0, maxWallMs: 12 } };
    expect(errorCheck(sliceWith({ ok: 980, timeout: 15, http_other: 5 }), DEFAULT, kept)?.status).toBe('fail');
  });
});
