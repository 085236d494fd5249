import { describe, expect, it } from 'vitest';

import { createRng, nextNormal } from '../core/rng.js';
import { buildPlan } from '../plan/index.js';
import { AttemptLog, Slice } from '../recorder/index.js';
import { parseScenario, parseThreshold, type Threshold } from '../scenario/index.js';
import { LATENCY_BANDS, type LatencyBand } from '../spec/index.js';
import { judgeStart } from './bucket-start.js';
import { envelopeFindings, type EnvelopePhase } from './envelope.js';
import { quantileRankBounds } from './quantile-interval.js';
import { evaluateVerdict } from './verdict.js';
import type { GeneratorHealth, PhaseInput } from './verdict-input.js';

/** A slice of n ok responses whose latencies are spread evenly over [fromMs, toMs]. */
function sliceOf(n: number, fromMs: number, toMs: number, extra: (s: Slice) => void = () => {}): Slice {
  const slice = new Slice();
  for (let i = 0; i < n; i++) {
    const latency = fromMs + ((toMs - fromMs) * i) / Math.max(1, n - 1);
    slice.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'ok',
      firedAtMs: 0,
      result: { status: 200, attempts: 1, lastSentAtMs: 0, endAtMs: latency, retryAfterS: [] },
    });
  }
  extra(slice);
  return slice;
}

const SUSTAINED = LATENCY_BANDS[0]!; // p95 < 2500 ms

/** n ok answers whose service time spreads over [fromMs, toMs], each sent `lagMs` late. */
function lateSlice(n: number, fromMs: number, toMs: number, lagMs: number): Slice {
  const slice = new Slice();
  for (let i = 0; i < n; i++) {
    const service = fromMs + ((toMs - fromMs) * i) / Math.max(1, n - 1);
    slice.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'ok',
      firedAtMs: lagMs,
      result: { status: 200, attempts: 1, lastSentAtMs: lagMs, endAtMs: lagMs + service, retryAfterS: [] },
    });
  }
  return slice;
}
const GOOD_GENERATOR: GeneratorHealth = {};

const NO_429: EnvelopePhase = {
  http429: 0,
  findings: 0,
  edge: 0,
  ifFullAtStart: 0,
  maxTokensAt429: null,
  marginTokens: 2.7,
  start: judgeStart({ known: 'nothing' }, 501, 100),
};

/** A constant-rate phase: one load band (sustained unless `band` says otherwise) judging the whole slice. */
function phase(
  slice: Slice,
  { band = SUSTAINED, ...overrides }: Partial<PhaseInput> & { band?: LatencyBand | null } = {},
): PhaseInput {
  return {
    name: 'steady',
    bands: [{ band: band ?? undefined, fromRpm: 100, toRpm: 100, steadyPlanned: 1000, steady: slice }],
    planned: 1000,
    steady: slice,
    all: slice,
    envelope: NO_429,
    thresholds: [],
    errorCheck: null,
    ...overrides,
  };
}

const verdictOf = (phases: PhaseInput[], generator = GOOD_GENERATOR) =>
  evaluateVerdict({ phases, documentedTargets: true, generator });
const checkOf = (phases: PhaseInput[], id: string) => verdictOf(phases).checks.find((c) => c.id === id)!;

describe('evaluateVerdict: the documented p95 target', () => {
  it('passes when the whole 95 % interval of p95 is under the target', () => {
    const v = verdictOf([phase(sliceOf(1000, 500, 2000))]); // p95 ≈ 1925 ms
    expect(v.status).toBe('pass');
    const c = v.checks.find((x) => x.id === 'latency_p95_target')!;
    expect(c).toMatchObject({ status: 'pass', what: 'p(95) < 2.50s (spec, sustained band, steady state)' });
    expect(c.interval![0]).toBeLessThanOrEqual(c.observed!);
    expect(c.interval![1]).toBeGreaterThanOrEqual(c.observed!);
  });

  it('fails when the whole interval is over, and names the phase in the reasons', () => {
    const v = verdictOf([phase(sliceOf(1000, 1000, 4000))]); // p95 ≈ 3850 ms
    expect(v.status).toBe('fail');
    expect(v.reasons[0]).toMatch(
      /^phase steady: p\(95\) < 2\.50s .*: p\(95\) 3\.8\ds, 95 % interval .*: not < 2\.50s$/,
    );
  });

  it('is inconclusive when the interval straddles the target', () => {
    // p95 right at the target: the interval cannot be on one side.
    const c = checkOf([phase(sliceOf(200, 0, 2500 / 0.95))], 'latency_p95_target');
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toContain('straddles 2.50s');
  });

  it('is inconclusive, never a pass, with too few samples or none', () => {
    expect(checkOf([phase(sliceOf(50, 10, 20))], 'latency_p95_target')).toMatchObject({
      status: 'inconclusive',
      interval: [expect.any(Number), null],
      reason: expect.stringMatching(
        /^p\(95\) \d+ms, 97\.5 % lower bound \d+ms, no upper bound: 50 responses are too few to bound p\(95\) from above \(at least 72 needed\)$/,
      ),
    });
    expect(checkOf([phase(new Slice())], 'latency_p95_target')).toMatchObject({
      status: 'inconclusive',
      observed: null,
      reason: 'no response was measured',
    });
  });

  it('has no documented check above 300 rpm (no band), or when documented targets are off', () => {
    expect(verdictOf([phase(sliceOf(100, 1, 2), { band: null })]).checks.map((c) => c.id)).not.toContain(
      'latency_p95_target',
    );
    expect(
      evaluateVerdict({
        phases: [phase(sliceOf(100, 1, 2))],
        documentedTargets: false,
        generator: GOOD_GENERATOR,
      }).checks.map((c) => c.id),
    ).not.toContain('latency_p95_target');
  });
});

describe('evaluateVerdict: one-sided decisions', () => {
  const threshold = (t: string): Threshold => parseThreshold(t) as Threshold;
  const thresholdCheck = (slice: Slice, t: string) =>
    verdictOf([phase(slice, { thresholds: [threshold(t)], band: null })]).checks.find((c) => c.id === 'threshold')!;

  it('fails p(99) < 1s on 300 responses from the lower bound alone, although an upper bound needs 368', () => {
    const c = thresholdCheck(sliceOf(300, 1000, 2580), 'p(99) < 1s'); // p50 1.79 s
    expect(c.status).toBe('fail');
    expect(c.interval![0]).toBeGreaterThan(2000);
    expect(c.interval![1]).toBeNull();
    expect(c.reason).toMatch(/^p\(99\) 2\.5\ds, 97\.5 % lower bound 2\.\d\ds, no upper bound: not < 1\.00s$/);
  });

  it('passes a lower-bound threshold from the lower bound alone: p(99) > 1s on 300 responses', () => {
    const c = thresholdCheck(sliceOf(300, 1000, 2580), 'p(99) > 1s');
    expect(c.status).toBe('pass');
    expect(c.interval![1]).toBeNull();
  });

  it('is inconclusive when only the missing side could decide, and says how many responses that side needs', () => {
    const below = thresholdCheck(sliceOf(300, 100, 500), 'p(99) < 1s'); // cannot fail (lower bound under 1 s), cannot pass without an upper bound
    expect(below.status).toBe('inconclusive');
    expect(below.reason).toMatch(
      /no upper bound: 300 responses are too few to bound p\(99\) from above \(at least 368 needed\)$/,
    );
    const above = thresholdCheck(sliceOf(300, 100, 500), 'p(99) > 1s'); // cannot pass (lower bound under 1 s); a fail needs an upper bound
    expect(above.status).toBe('inconclusive');
    expect(above.reason).toContain('(at least 368 needed)');
  });

  it('decides with both bounds as before when both exist', () => {
    const c = thresholdCheck(sliceOf(1000, 1000, 2580), 'p(99) < 1s');
    expect(c.status).toBe('fail');
    expect(c.interval!.every((ms) => typeof ms === 'number')).toBe(true);
    expect(c.reason).toMatch(/, 95 % interval .*: not < 1\.00s$/);
  });
});

/** A slice over [0, n × spacing) of model time whose i-th answer was intended at i × spacing and took latencies[i]. */
function timedSlice(latencies: readonly number[], spacingMs = 600): Slice {
  const slice = new Slice({ fromMs: 0, toMs: latencies.length * spacingMs });
  latencies.forEach((ms, i) => {
    const at = i * spacingMs;
    slice.add({
      phase: 0,
      intendedAtMs: at,
      outcome: 'ok',
      firedAtMs: at,
      result: { status: 200, attempts: 1, lastSentAtMs: at, endAtMs: at + ms, retryAfterS: [] },
    });
  });
  return slice;
}

/**
 * n latencies (ms) of a FIFO queue (Lindley's recursion): one arrival per 600 ms, log-normal service at 60 % load,
 * after 200 to settle.
 */
function queueLatencies(n: number, seed: number): number[] {
  const rng = createRng(seed);
  const meanMs = 0.6 * 600;
  const sigma = 0.5;
  let waitMs = 0;
  const out: number[] = [];
  for (let i = 0; i < n + 200; i++) {
    const serviceMs = meanMs * Math.exp(sigma * nextNormal(rng) - (sigma * sigma) / 2);
    if (i >= 200) out.push(waitMs + serviceMs);
    waitMs = Math.max(0, waitMs + serviceMs - 600);
  }
  return out;
}

const covers = (interval: readonly (number | null)[] | null, truth: number): boolean =>
  interval !== null &&
  (interval[0] === null || interval[0]! <= truth) &&
  (interval[1] === null || truth <= interval[1]!);
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const nearestRank = (sorted: readonly number[], q: number): number => sorted[Math.ceil(q * sorted.length) - 1]!;

// Seeded, so each figure below is fixed; the seed counts are what keeps these checks cheap (200 and 50
// seeds: 0.955 / 0.805 and independent coverage 0.98–1.0 here). How well the interval covers over many
// seeds, on the mock's own fleet, is measured by `npm run bench:coverage`.
describe('evaluateVerdict: the interval on correlated and on independent latencies', () => {
  it('keeps 95 % coverage of p95 when latencies are correlated (a queue), where order statistics alone cover about 80 %', () => {
    const n = 900;
    const runs = Array.from({ length: 200 }, (_, seed) => queueLatencies(n, seed + 1));
    const truth = nearestRank(
      runs.flat().sort((a, b) => a - b),
      0.95,
    );
    const ranks = quantileRankBounds(n, 0.95);
    let covered = 0;
    let coveredByOrderStatistics = 0;
    for (const latencies of runs) {
      const slice = timedSlice(latencies);
      if (covers(checkOf([phase(slice)], 'latency_p95_target').interval, truth)) covered++;
      const h = slice.latencyExcl429;
      if (covers([h.rankMs(ranks.lowerRank!), h.rankMs(ranks.upperRank!)], truth)) coveredByOrderStatistics++;
    }
    expect(coveredByOrderStatistics / runs.length).toBeLessThan(0.85); // the sample is correlated enough to matter
    expect(covered / runs.length).toBeGreaterThanOrEqual(0.93);
  }, 60_000);

  it('is at most 1.5 × as wide as the order-statistics interval on independent samples (median over seeds), and covers', () => {
    for (const n of [100, 200, 450, 900, 2000]) {
      const ratios: number[] = [];
      let covered = 0;
      const seeds = 50;
      const ranks = quantileRankBounds(n, 0.95);
      const truth = 1000 * Math.exp(0.5 * 1.6448536269514722); // p95 of log-normal(ln 1000 ms, 0.5)
      for (let seed = 1; seed <= seeds; seed++) {
        const rng = createRng(10_000 * n + seed);
        const slice = timedSlice(Array.from({ length: n }, () => 1000 * Math.exp(0.5 * nextNormal(rng))));
        const interval = checkOf([phase(slice)], 'latency_p95_target').interval!;
        if (covers(interval, truth)) covered++;
        const h = slice.latencyExcl429;
        ratios.push((interval[1]! - interval[0]!) / (h.rankMs(ranks.upperRank!) - h.rankMs(ranks.lowerRank!)));
      }
      expect({ n, ratio: median(ratios) <= 1.5 }).toEqual({ n, ratio: true });
      expect(Math.min(...ratios)).toBeGreaterThanOrEqual(1); // never narrower than order statistics
      expect(covered / seeds).toBeGreaterThanOrEqual(0.95);
    }
  }, 60_000);
});

describe('evaluateVerdict: 429s, thresholds and the generator', () => {
  it('fails a phase with 429s the documented limits clearly allow, and passes one whose 429s are at the edge', () => {
    const c = checkOf(
      [phase(sliceOf(100, 1, 2), { envelope: { ...NO_429, http429: 5, findings: 3, edge: 1, maxTokensAt429: 42.5 } })],
      'http_429_in_envelope',
    );
    expect(c).toMatchObject({ status: 'fail', observed: 3 });
    // Every finding says which start of the bucket it was judged from.
    expect(c.reason).toBe(
      "3 429s on requests the documented limits clearly allow (the bucket, replayed over the requests the service admitted and judged from an empty bucket at the start (nothing is known of the client's traffic before the run), held up to 42.5 tokens where 1 + a margin of 2.7 was enough): a finding against the service; 1 at the edge (inside the envelope by less than the margin of 2.7 tokens: the timing cannot tell, so not a finding)",
    );
    const edge = checkOf(
      [phase(sliceOf(100, 1, 2), { envelope: { ...NO_429, http429: 2, edge: 2, maxTokensAt429: 1.2 } })],
      'http_429_in_envelope',
    );
    expect(edge).toMatchObject({ status: 'pass', observed: 0 });
    expect(edge.reason).toBe(
      "2 429s, none on a request the documented limits clearly allow, judged from an empty bucket at the start (nothing is known of the client's traffic before the run); 2 at the edge (inside the envelope by less than the margin of 2.7 tokens: the timing cannot tell, so not a finding)",
    );
  });

  it('makes the envelope inconclusive when only the unknown start keeps 429s from being findings', () => {
    // A limiter with no burst at all (capacity 1, refilled at 100 rpm), met at 200 rpm for 3 minutes: half refused.
    // From an empty start none is a finding (the refill alone explains them), from a full one nearly all are.
    const plan = buildPlan(
      parseScenario('name: x\ndescription: x\nphases:\n  - { name: p, duration: 180s, rpm: 200 }\n', 'x.yaml'),
    );
    const log = new AttemptLog();
    let tokens = 1;
    let last = 0;
    for (const t of plan.phases[0]!.arrivalsMs) {
      tokens = Math.min(1, tokens + ((t - last) * 100) / 60_000);
      last = t;
      const ok = tokens >= 1;
      if (ok) tokens -= 1;
      const status = ok ? 200 : 429;
      const tries = [{ sentAtMs: t, endAtMs: t + 50, status }];
      log.add({
        phase: 0,
        intendedAtMs: t,
        outcome: ok ? 'ok' : 'http_429',
        firedAtMs: t,
        result: { status, attempts: 1, lastSentAtMs: t, endAtMs: t + 50, retryAfterS: ok ? [] : [1], tries },
      });
    }
    const documented = { sustainedRpm: 100, burstRpm: 200, burstMinutes: 5 };
    const envelope = envelopeFindings(plan, log, documented, { known: 'nothing' }).phases[0]!;
    expect(envelope.http429).toBeGreaterThan(200);
    expect(envelope.findings).toBe(0);
    expect(envelope.ifFullAtStart).toBeGreaterThan(200);
    const c = checkOf([phase(sliceOf(100, 1, 2), { envelope })], 'http_429_in_envelope');
    expect(c).toMatchObject({ status: 'inconclusive', observed: 0 });
    expect(c.reason).toContain(`${envelope.ifFullAtStart} would be findings from a full bucket`);
    expect(c.reason).toContain('--idle-before 5m1s');
    expect(c.reason).toContain('loadproof report <run-folder> --idle-before 5m1s');
    // Declared idle long enough: the start is known, and the same 429s are findings.
    const full = envelopeFindings(plan, log, documented, { known: 'idle', idleBeforeMs: 600_000 }).phases[0]!;
    expect(checkOf([phase(sliceOf(100, 1, 2), { envelope: full })], 'http_429_in_envelope').status).toBe('fail');
    // A start that changes nothing (every 429 outside the envelope from a full bucket too) passes, unknown as it is.
    const outside = { ...NO_429, http429: 4, ifFullAtStart: 0, maxTokensAt429: 0.2 };
    expect(checkOf([phase(sliceOf(100, 1, 2), { envelope: outside })], 'http_429_in_envelope').status).toBe('pass');
  });

  it('checks threshold expressions on the steady state', () => {
    const withErrors = sliceOf(198, 100, 200, (s) => {
      s.add({
        phase: 0,
        intendedAtMs: 0,
        outcome: 'timeout',
        firedAtMs: 0,
        result: { attempts: 1, lastSentAtMs: 0, endAtMs: 16_000, retryAfterS: [] },
      });
      s.add({
        phase: 0,
        intendedAtMs: 0,
        outcome: 'http_504',
        firedAtMs: 0,
        result: { status: 504, attempts: 1, lastSentAtMs: 0, endAtMs: 15_000, retryAfterS: [] },
      });
    });
    const thresholds = ['rate(errors) < 2%', 'count(504) == 0', 'p(50) < 1s', 'rate(5xx) <= 0.5%'].map(
      (t) => parseThreshold(t) as Threshold,
    );
    const checks = verdictOf([phase(withErrors, { thresholds })]).checks.filter((c) => c.id === 'threshold');
    expect(checks.map((c) => [c.what, c.status, c.reason])).toEqual([
      ['rate(errors) < 2%', 'pass', '2 of 200 (1.00 %)'],
      ['count(504) == 0', 'fail', 'count 1'],
      ['p(50) < 1s', 'pass', expect.stringContaining(': < 1.00s')],
      ['rate(5xx) <= 0.5%', 'pass', '1 of 200 (0.50 %)'],
    ]);
  });

  it('keeps a pass of an upper bound when the generator was late (lateness only adds to latency), and says it was late', () => {
    const v = verdictOf([phase(lateSlice(1000, 500, 1500, 400))], { eventLoopDelayP99Ms: 900 });
    expect(v.status).toBe('pass');
    expect(v.notes).toEqual([
      expect.stringMatching(
        /^phase steady: the generator was late \(send lag p99 400ms and event-loop delay p99 900ms over/,
      ),
    ]);
    expect(verdictOf([phase(sliceOf(1000, 500, 1500))]).notes).toEqual([]);
  });

  it('keeps a fail when the generator kept its budget (send lag p99 of the phase within 1 % of the target)', () => {
    expect(verdictOf([phase(lateSlice(1000, 1000, 4000, 25))]).status).toBe('fail');
  });

  it("keeps a fail that the generator's worst lateness cannot explain", () => {
    // p95 about 5.7 s against 2.5 s; the generator was 143 ms late at worst, and the loop 100 ms.
    const v = verdictOf([phase(lateSlice(1000, 3000, 6000, 143))], {
      eventLoopDelayP99Ms: 109,
      eventLoopDelayMaxMs: 100,
    });
    expect(v.status).toBe('fail');
    expect(v.reasons[0]).toContain(
      'but not enough to cause it: with its worst lateness (243ms) taken off, the interval is',
    );
  });

  it('keeps a fail from a late generator when service time alone fails too', () => {
    // Sent 50 ms late, one of them 3 s late: taking the worst lateness off everything proves nothing, service time
    // does.
    const slice = lateSlice(999, 1000, 4000, 50);
    slice.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'ok',
      firedAtMs: 3000,
      result: { status: 200, attempts: 1, lastSentAtMs: 3000, endAtMs: 4000, retryAfterS: [] },
    });
    const v = verdictOf([phase(slice)]);
    expect(v.status).toBe('fail');
    expect(v.reasons[0]).toContain(
      "the generator was late (send lag p99 50ms over the generator's budget of 25ms, 1 % of the target, model time), but service time alone gives the same",
    );
  });

  it('turns a fail into inconclusive when the generator was late and service time alone does not fail', () => {
    // Each answer took 500–2000 ms after its actual send, but the send was 1.5 s late.
    const v = verdictOf([phase(lateSlice(1000, 500, 2000, 1500))]);
    expect(v.status).toBe('inconclusive');
    expect(v.reasons[0]).toMatch(
      /not < 2\.50s, but the generator was late \(send lag p99 1\.50s over the generator's budget of 25ms, 1 % of the target, model time\) and on service time alone p\(95\) 1\.9\ds, .*: < 2\.50s: the result may be the generator's, not the service's$/,
    );
  });

  it('at time scale k counts the lateness as latency does, once: 80 ms of model time late (4 ms of wall at k = 20) is within a 25 ms budget', () => {
    // Service 2,400–2,480 ms after a send 80 ms late: p95 just over 2.5 s, and just under it on service time alone.
    const slice = lateSlice(1000, 2400, 2480, 80);
    const asIfRealTime = verdictOf([phase(slice)]);
    expect(asIfRealTime.status).toBe('inconclusive');
    expect(asIfRealTime.notes[0]).toContain('the generator was late (send lag p99 80ms over');
    const atK20 = verdictOf([phase(slice)], { latenessInLatency: 1 / 20 });
    expect(atK20.status).toBe('fail');
    expect(atK20.notes).toEqual([]);
    // A lag that matters at k = 20 still gates: 1.5 s of model time late is 75 ms as latency counts it
    // (each event as the accounting records it: latency = service + 1,500 ÷ 20).
    const late = new Slice();
    for (let i = 0; i < 1000; i++) {
      const service = 2400 + (80 * i) / 999;
      late.add({
        phase: 0,
        intendedAtMs: 0,
        outcome: 'ok',
        firedAtMs: 1500,
        result: {
          status: 200,
          attempts: 1,
          lastSentAtMs: 1500,
          endAtMs: 1500 + service,
          retryAfterS: [],
          latencyMs: service + 75,
          serviceMs: service,
        },
      });
    }
    const stalled = verdictOf([phase(late)], { latenessInLatency: 1 / 20 });
    expect(stalled.status).toBe('inconclusive');
    expect(stalled.reasons[0]).toContain(
      'the generator was late (send lag p99 75ms (as latency counts it: once, not k times) over',
    );
  });

  it('judges each phase by its own send lag: a stall in one phase does not hide behind the rest of the run', () => {
    const late = lateSlice(1000, 500, 2000, 1500);
    const onTime = sliceOf(1000, 500, 2000);
    const v = verdictOf([phase(onTime, { name: 'calm' }), phase(late, { name: 'stalled' })]);
    expect(v.checks.filter((c) => c.id === 'latency_p95_target').map((c) => [c.phase, c.status])).toEqual([
      ['calm', 'pass'],
      ['stalled', 'inconclusive'],
    ]);
  });

  it('does not fall back on service time when the event loop was blocked: it delays reading every answer', () => {
    const v = verdictOf([phase(sliceOf(1000, 1000, 4000))], { eventLoopDelayP99Ms: 60, eventLoopDelayMaxMs: 2000 });
    expect(v.status).toBe('inconclusive');
    expect(v.reasons[0]).toContain('event-loop delay p99 60ms over the generator');
    expect(v.reasons[0]).toContain('service time, read on the same blocked event loop, cannot tell');
  });

  it('does not let lateness pass a lower bound: p(95) > 1s passes only if service time passes it too', () => {
    const thresholds = [parseThreshold('p(95) > 1s') as Threshold];
    const late = lateSlice(1000, 200, 600, 1500); // true latency 200–600 ms, each sent 1.5 s late
    const check = verdictOf([phase(late, { thresholds, band: null })]).checks.find((c) => c.id === 'threshold')!;
    expect(check.status).toBe('inconclusive');
    expect(check.reason).toContain('the generator was late');
    const onTime = verdictOf([phase(lateSlice(1000, 1100, 1500, 0), { thresholds, band: null })]).checks.find(
      (c) => c.id === 'threshold',
    )!;
    expect(onTime.status).toBe('pass');
  });
});

describe('evaluateVerdict: the embedded mock fell behind (its own lag, not the service)', () => {
  // At k = 20 the run's own overheads count once; the mock's stall in full (its arrivals bunch in model time).
  const k20 = (mock?: GeneratorHealth['mock']): GeneratorHealth => ({
    latenessInLatency: 1 / 20,
    ...(mock === undefined ? {} : { mock }),
  });

  it('turns a fail the mock could have caused into inconclusive, and says so in one note for the run', () => {
    // p95 about 3.85 s against 2.5 s; the mock stalled 220 ms of wall time: 200 ms over its window, × 20 = 4 s.
    const v = verdictOf([phase(sliceOf(1000, 1000, 4000))], k20({ modelMs: 4000, maxWallMs: 220 }));
    expect(v.status).toBe('inconclusive');
    expect(v.reasons[0]).toContain('the embedded mock fell behind by up to 220ms (wall)');
    expect(v.notes).toEqual([
      "The embedded mock fell behind by up to 220ms (wall), which could add 4.00s of model time to a latency — not the service's: a result it could have caused was checked again without it, else made inconclusive, never counted as a finding.",
    ]);
  });

  it('keeps a fail the mock could not have caused, and a fail beside a mock within its window', () => {
    const far = verdictOf([phase(sliceOf(1000, 6000, 9000))], k20({ modelMs: 1000, maxWallMs: 70 }));
    expect(far.status).toBe('fail');
    expect(far.reasons[0]).toContain('but not enough to cause it: with its worst lateness (1.00s) taken off');
    const inWindow = verdictOf([phase(sliceOf(1000, 1000, 4000))], k20({ modelMs: 0, maxWallMs: 15 }));
    expect(inWindow.status).toBe('fail');
    expect(inWindow.notes).toEqual([]);
  });

  it('keeps a fail beside a mock that stalled once: its p99 within the window, the arrivals it held too few to move a p95', () => {
    // A busy machine's one 220 ms stall: max 200 ms over the window (4 s of model time), p99 within it.
    const once = verdictOf([phase(sliceOf(1000, 1000, 4000))], k20({ modelMs: 4000, maxWallMs: 220, p99ModelMs: 0 }));
    expect(once.status).toBe('fail');
    expect(once.notes).toEqual([]);
    const often = verdictOf(
      [phase(sliceOf(1000, 1000, 4000))],
      k20({ modelMs: 4000, maxWallMs: 220, p99ModelMs: 600 }),
    );
    expect(often.status).toBe('inconclusive');
  });
});
