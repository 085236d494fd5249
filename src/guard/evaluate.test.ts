import { describe, expect, it } from 'vitest';

import { buildPlan, type Plan, type PlannedPhase } from '../plan/index.js';
import { parseScenario } from '../scenario/index.js';
import type { GuardDecision } from './decision.js';
import { evaluateGuard } from './evaluate.js';

type Phase = { name: string; duration: string; rpm?: number; fromRpm?: number; toRpm?: number };

const SANDBOX = { environment: 'sandbox', baseUrl: 'https://sandbox.example.com' };
const PRODUCTION = { environment: 'production', baseUrl: 'https://api.example.com' };
const flat = (duration: string, rpm: number, name = 'p'): Phase => ({ name, duration, rpm });

function decide(
  scenario: Record<string, unknown>,
  at: string,
  options: { timeScale?: number; loopbackAsReal?: boolean } = {},
): GuardDecision {
  const text = JSON.stringify({ name: 'g', description: 'guard table', phases: [flat('10m', 60)], ...scenario });
  const plan = buildPlan(parseScenario(text, 'g.json'), { timeScale: options.timeScale ?? 1 });
  return evaluateGuard(plan, { startAtMs: Date.parse(at), loopbackAsReal: options.loopbackAsReal ?? false });
}

const statusOf = (d: GuardDecision, rule: string): string => d.checks.find((c) => c.rule === rule)!.status;
const reasonOf = (d: GuardDecision, rule: string): string => d.reasons.find((r) => r.startsWith(`${rule}:`)) ?? '';

describe('guard: advance notice of a sandbox run (14 days, UTC)', () => {
  const notice = { announcedOn: '2026-11-01', reference: 'CASE-1001' };
  it.each([
    { name: 'exactly 14 days', at: '2026-11-15T00:00:00Z', status: 'ok', says: '14 days before the run start' },
    {
      name: '13 days 23 hours',
      at: '2026-11-14T23:00:00Z',
      status: 'refused',
      says: '1 hour (0.04 days) short of the 14 days',
    },
    {
      name: 'a +01:00 start that is still 14 Nov in UTC',
      at: '2026-11-15T00:30:00+01:00',
      status: 'refused',
      says: '30 minutes (0.02 days) short',
    },
    {
      name: 'a -01:00 start that is already 15 Nov in UTC',
      at: '2026-11-14T23:30:00-01:00',
      status: 'ok',
      says: '14 days before',
    },
    {
      name: 'two days early',
      at: '2026-11-13T00:00:00Z',
      status: 'refused',
      says: 'is 12 days before the run start 2026-11-13T00:00:00Z: 2 days short of the 14 days',
    },
    { name: 'a month ahead', at: '2026-12-01T09:00:00Z', status: 'ok', says: '30 days 9 hours before the run start' },
  ])('$name → $status', ({ at, status, says }) => {
    const d = decide({ target: SANDBOX, notice }, at);
    expect(statusOf(d, 'notice')).toBe(status);
    expect(d.allowed).toBe(status === 'ok');
    expect(d.checks.find((c) => c.rule === 'notice')!.message).toContain(says);
  });

  it('refuses a sandbox run without a notice and says which announcement day would do', () => {
    const d = decide({ target: SANDBOX }, '2026-11-20T10:00:00Z');
    expect(d.allowed).toBe(false);
    expect(reasonOf(d, 'notice')).toContain('a sandbox run needs an advance notice and this scenario has none');
    expect(reasonOf(d, 'notice')).toContain('announcedOn must be 2026-11-06 or earlier (UTC)');
    expect(reasonOf(d, 'notice')).toContain('at least two weeks in advance');
  });

  it('says what would satisfy the rule', () => {
    const d = decide({ target: SANDBOX, notice }, '2026-11-13T00:00:00Z');
    expect(reasonOf(d, 'notice')).toMatch(
      /; start at or after 2026-11-15T00:00:00Z, or use a notice announced on 2026-10-30 or earlier$/,
    );
  });

  it('refuses a notice dated after the run start', () => {
    const d = decide(
      { target: SANDBOX, notice: { announcedOn: '2026-12-01', reference: 'CASE-1' } },
      '2026-11-20T00:00:00Z',
    );
    expect(reasonOf(d, 'notice')).toContain('is after the run start 2026-11-20T00:00:00Z: 25 days short');
  });

  it('does not ask production for a notice', () => {
    const d = decide({ target: PRODUCTION }, '2026-11-20T10:00:00Z');
    expect(statusOf(d, 'notice')).toBe('not-applicable');
    expect(d.allowed).toBe(true);
  });
});

describe('guard: the announced window', () => {
  // A 1-hour plan; its planned end is the last slot + the 16 s client timeout.
  const notice = {
    announcedOn: '2026-11-01',
    reference: 'CASE-2',
    window: { start: '2026-12-01T09:00:00Z', end: '2026-12-01T12:00:00Z' },
  };
  it.each([
    { name: 'at the opening', at: '2026-12-01T09:00:00Z', status: 'ok', says: 'are inside the announced window' },
    {
      name: 'the same instant written at +01:00',
      at: '2026-12-01T10:00:00+01:00',
      status: 'ok',
      says: 'start 2026-12-01T09:00:00Z',
    },
    {
      name: 'a minute before it opens',
      at: '2026-12-01T08:59:00Z',
      status: 'refused',
      says: '1 minute before the announced window',
    },
    {
      name: 'ending exactly at the close',
      at: '2026-12-01T10:59:44Z',
      status: 'ok',
      says: 'planned end 2026-12-01T12:00:00Z',
    },
    {
      name: 'ending 16 s after the close',
      at: '2026-12-01T11:00:00Z',
      status: 'refused',
      says: 'planned end 2026-12-01T12:00:16Z (last arrival + worst-case answer time) is less than a minute after',
    },
  ])('$name → $status', ({ at, status, says }) => {
    const d = decide({ target: SANDBOX, notice, phases: [flat('1h', 60)] }, at);
    expect(statusOf(d, 'notice-window')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'notice-window')!.message).toContain(says);
  });
});

// Phases' declared rates can hide what is sent (many short phases, a ramp): the guard judges the planned arrivals
// themselves, counted in sliding 60 s windows (each arrival as many times as it may be sent), not the rates the phases
// declare.

const MINUTE = 60_000;
const repeat = <T>(n: number, make: (i: number) => T[]): T[] => Array.from({ length: n }, (_, i) => make(i)).flat();
/** The documented spike: 5 minutes at 300 rpm between 2-minute phases at 100 rpm. */
const DOCUMENTED_SPIKE = [flat('2m', 100, 'warm'), flat('5m', 300, 'spike'), flat('2m', 100, 'recover')];
/** Ten repeats of 5 minutes at 300 rpm and 1 minute at 200: an hour averaging 283 rpm. */
const TEN_REPEATS = repeat(10, (i) => [flat('5m', 300, `hot${i + 1}`), flat('1m', 200, `dip${i + 1}`)]);

/** The oracle is quadratic: it checks plans up to this many arrivals. */
const ORACLE_MAX = 4000;
/** The oracle's measures, or the decision's own when the plan is too big for it. */
const oracleOr = (d: GuardDecision, plan: Plan): Oracle => {
  const arrivalsMs = allArrivals(plan);
  const spreadMs = plan.scenario.timeoutMs + plan.scenario.on429.maxDelayMs;
  return arrivalsMs.length > ORACLE_MAX
    ? measured(d)
    : oracle(arrivalsMs, d.traffic.worstCaseFactor, 200, d.limits.spikeRpm, spreadMs, d.limits.spikeMinutes);
};

interface OracleStretch {
  startMs: number;
  endMs: number;
  durationMs: number;
}
interface Oracle {
  peakRpm: number;
  above: OracleStretch | null;
  atSpike: OracleStretch | null;
}

/**
 * The same measures by brute force, straight from their definitions (quadratic: small plans only),
 * so the guard's two-pointer sweep is checked against something that shares none of its code.
 * Stretches closer than the rule's 5 minutes join. With retries (attempts > 1, spread = timeout +
 * maxDelay), attempt k of an arrival may land up to (k − 1) × spread after it: the count at T is the
 * attempts that could land in the minute before T, one per k with t ≤ T < t + 60 s + (k − 1) × spread.
 */
function oracle(
  arrivalsMs: readonly number[],
  attempts: number,
  aboveRpm: number,
  spikeRpm: number,
  spreadMs = 0,
  spikeMinutes = 5,
): Oracle {
  if (arrivalsMs.length > ORACLE_MAX)
    throw new Error(`the oracle is quadratic: ${arrivalsMs.length} arrivals is too many`);
  const us = arrivalsMs.map((t) => Math.round(t * 1000)).sort((x, y) => x - y);
  const L = MINUTE * 1000;
  const ABOVE_BRIDGE = 5 * MINUTE * 1000;
  const AT_BRIDGE = spikeMinutes * MINUTE * 1000;
  // The arrivals t with from ≤ t < to: two bisections of the sorted times (a filter made the suite's
  // slowest unit test; same definition).
  const firstAtOrAfter = (x: number): number => {
    let lo = 0;
    let hi = us.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (us[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const held = (from: number, to: number): number => Math.max(0, firstAtOrAfter(to) - firstAtOrAfter(from));
  const longest = (runs: [number, number][], bridge: number): OracleStretch | null => {
    const span = (r: [number, number]): number => r[1] - r[0];
    const merged: [number, number][] = [];
    for (const r of runs) {
      const last = merged[merged.length - 1];
      if (last !== undefined && r[0] - last[1] < bridge) last[1] = Math.max(last[1], r[1]);
      else merged.push([...r]);
    }
    const best = merged.reduce<[number, number] | null>((m, r) => (m === null || span(r) > span(m) ? r : m), null);
    return best === null ? null : { startMs: best[0] / 1000, endMs: best[1] / 1000, durationMs: span(best) / 1000 };
  };
  if (attempts > 1) {
    const lengths = Array.from({ length: attempts }, (_, k) => L + k * spreadMs * 1000);
    const count = (T: number): number =>
      us.reduce((n, t) => n + lengths.filter((len) => t <= T && T < t + len).length, 0);
    const edges = [...new Set(us.flatMap((t) => [t, ...lengths.map((len) => t + len)]))].sort((x, y) => x - y);
    let peakRpm = 0;
    const aboveRuns: [number, number][] = [];
    const spikeRuns: [number, number][] = [];
    for (let k = 0; k + 1 < edges.length; k++) {
      const c = count(edges[k]!);
      peakRpm = Math.max(peakRpm, c);
      if (c > aboveRpm) aboveRuns.push([edges[k]!, edges[k + 1]!]);
      if (c >= spikeRpm) spikeRuns.push([Math.max(0, edges[k]! - L), edges[k + 1]!]);
    }
    return { peakRpm, above: longest(aboveRuns, ABOVE_BRIDGE), atSpike: longest(spikeRuns, AT_BRIDGE) };
  }
  // Peak: the fullest window; one starting at an arrival holds at least as much as any other.
  const peakRpm = Math.max(0, ...us.map((t) => held(t, t + L)));
  // Above: between two consecutive edges (arrival times and arrival times + 60 s) the window [t − 60 s, t) holds a
  // constant count.
  const edges = [...new Set(us.flatMap((t) => [t, t + L]))].sort((x, y) => x - y);
  const aboveRuns: [number, number][] = [];
  for (let k = 0; k + 1 < edges.length; k++)
    if (held(edges[k + 1]! - L, edges[k + 1]!) > aboveRpm) aboveRuns.push([edges[k]!, edges[k + 1]!]);
  // At the spike rate: the arrivals inside windows holding ≥ spikeRpm requests, first to last.
  const covered = new Set<number>();
  for (const t of us) if (held(t, t + L) >= spikeRpm) for (const u of us) if (u >= t && u < t + L) covered.add(u);
  const spikeRuns = [...covered].sort((x, y) => x - y).map((t): [number, number] => [t, t]);
  return { peakRpm, above: longest(aboveRuns, ABOVE_BRIDGE), atSpike: longest(spikeRuns, AT_BRIDGE) };
}

/** The decision's measures, in the oracle's shape. */
const measured = (d: GuardDecision): Oracle => {
  const pick = (s: { startMs: number; endMs: number; durationMs: number } | null): OracleStretch | null =>
    s === null ? null : { startMs: s.startMs, endMs: s.endMs, durationMs: s.durationMs };
  return {
    peakRpm: d.traffic.peakRpm,
    above: pick(d.traffic.longestAboveCoordinationRpm),
    atSpike: pick(d.traffic.longestAtSpikeRpm),
  };
};

const planOf = (scenario: Record<string, unknown>) =>
  buildPlan(
    parseScenario(
      JSON.stringify({
        name: 'g',
        description: 'guard table',
        target: PRODUCTION,
        phases: [flat('10m', 60)],
        ...scenario,
      }),
      'g.json',
    ),
  );
const allArrivals = (plan: Plan): number[] => plan.phases.flatMap((p) => Array.from(p.arrivalsMs));

/** A plan made by hand, as a bug in the planner could make it: phases that say one thing, arrivals that do another. */
function handMadePlan(
  phases: readonly { name: string; durationMs: number; rpm: number }[],
  arrivalsMs: readonly number[],
): Plan {
  const scenario = parseScenario(
    JSON.stringify({
      name: 'hand',
      description: 'hand-made',
      target: PRODUCTION,
      phases: phases.map((p) => flat(`${p.durationMs}ms`, p.rpm, p.name)),
    }),
    'hand.json',
  );
  let startMs = 0;
  const planned = phases.map((p, index): PlannedPhase => {
    const phase = {
      index,
      name: p.name,
      startMs,
      durationMs: p.durationMs,
      fromRpm: p.rpm,
      toRpm: p.rpm,
      offeredRpm: p.rpm,
      peakRpm: p.rpm,
      bands: [],
      warmupMs: 0,
      arrivalsMs: Float64Array.from(arrivalsMs.filter((t) => t >= startMs && t < startMs + p.durationMs)),
    };
    startMs += p.durationMs;
    return phase;
  });
  return { scenario, phases: planned, durationMs: startMs, arrivals: arrivalsMs.length, timeScale: 1 };
}

const AT = Date.parse('2026-11-20T10:00:00Z');

describe('guard: traffic is the planned arrivals in sliding 60 s windows, not the phases’ labels', () => {
  it.each([
    {
      name: '300 rpm held 10m: exactly 300 in any minute (half-open windows)',
      phases: [flat('10m', 300)],
      arrivals: 3000,
      peak: 300,
    },
    {
      name: '200 × {100ms, 1 rpm}: the plan holds one request',
      phases: repeat(200, (i) => [flat('100ms', 1, `t${i}`)]),
      arrivals: 1,
      peak: 1,
    },
    // (3,000 such phases are refused when the file is read: at most 1,000 phases.)
    {
      name: '1,000 × {1ms, 300 rpm}: 5 requests in 1 s',
      phases: repeat(1000, (i) => [flat('1ms', 300, `t${i}`)]),
      arrivals: 5,
      peak: 5,
    },
    {
      name: 'a ramp 100→360 over 2m: its busiest minute holds 295',
      phases: [{ name: 'r', duration: '2m', fromRpm: 100, toRpm: 360 }],
      arrivals: 460,
      peak: 295,
    },
  ])('$name → peak $peak', ({ phases, arrivals, peak }) => {
    const plan = planOf({ phases });
    const d = evaluateGuard(plan, { startAtMs: AT });
    expect(plan.arrivals).toBe(arrivals);
    expect(d.traffic.peakRpm).toBe(peak);
  });

  it('judges a hand-made plan of 200 phases at 1 rpm on its 200 arrivals in 20 s: 200 in a minute', () => {
    const phases = repeat(200, (i) => [{ name: `t${i}`, durationMs: 100, rpm: 1 }]);
    const d = evaluateGuard(
      handMadePlan(
        phases,
        Array.from({ length: 200 }, (_, i) => i * 100),
      ),
      { startAtMs: AT },
    );
    expect(d.traffic).toMatchObject({
      peakRpm: 200,
      peakMinuteStartMs: 0,
      longestAboveCoordinationRpm: null,
      longestAtSpikeRpm: null,
    });
    expect(d.allowed).toBe(true);
    expect(d.checks.find((c) => c.rule === 'envelope')!.message).toContain('peak 200 rpm');
  });

  it('refuses a hand-made plan whose phases say 1 rpm but whose arrivals are dense: the peak is the arrivals in a minute', () => {
    const phases = repeat(1000, (i) => [{ name: `t${i}`, durationMs: 1, rpm: 1 }]);
    const d = evaluateGuard(
      handMadePlan(
        phases,
        Array.from({ length: 1000 }, (_, i) => i),
      ),
      { startAtMs: AT },
    );
    expect(d.traffic.peakRpm).toBe(1000);
    expect(d.allowed).toBe(false);
    expect(reasonOf(d, 'envelope')).toContain(
      'it peaks at 1000 rpm (1000 requests in the minute from 0s), above 300 rpm',
    );
  });

  it.each([
    { name: 'constant 250 rpm', scenario: { phases: [flat('7m', 250)] } },
    { name: 'the documented spike', scenario: { phases: DOCUMENTED_SPIKE } },
    {
      name: 'a dip shorter than a minute',
      scenario: { phases: [flat('4m', 250, 'a'), flat('30s', 100, 'dip'), flat('4m', 250, 'b')] },
    },
    {
      name: 'ramps up and down',
      scenario: {
        phases: [
          { name: 'up', duration: '4m', fromRpm: 50, toRpm: 330 },
          { name: 'down', duration: '3m', fromRpm: 330, toRpm: 120 },
        ],
      },
    },
    {
      name: 'Poisson at 250 rpm, seed 3',
      scenario: { phases: [flat('6m', 250)], arrivals: { process: 'poisson', seed: 3 } },
    },
    {
      name: 'Poisson at 290 rpm, seed 11',
      scenario: {
        phases: [flat('2m', 100, 'a'), flat('5m', 290, 'b'), flat('1m', 150, 'c')],
        arrivals: { process: 'poisson', seed: 11 },
      },
    },
    {
      name: 'Poisson ramp, seed 4',
      scenario: {
        phases: [{ name: 'r', duration: '8m', fromRpm: 150, toRpm: 320 }],
        arrivals: { process: 'poisson', seed: 4 },
      },
    },
    {
      name: 'retries: 40 rpm × 2 attempts, spread 46 s',
      scenario: { phases: [flat('6m', 40)], on429: { policy: 'retry', maxAttempts: 2 } },
    },
    {
      name: 'retries: bursts × 3 attempts, spread 20 s',
      scenario: {
        phases: [flat('20s', 600, 'a'), flat('2m', 10, 'b'), flat('30s', 300, 'c')],
        on429: { policy: 'retry', maxAttempts: 3, maxDelay: '4s' },
      },
    },
  ])('measures $name exactly as the brute-force definitions do', ({ scenario }) => {
    const plan = planOf(scenario);
    const d = evaluateGuard(plan, { startAtMs: AT });
    const s = plan.scenario;
    expect(measured(d)).toEqual(
      oracle(allArrivals(plan), d.traffic.worstCaseFactor, 200, 300, s.timeoutMs + s.on429.maxDelayMs),
    );
    expect(measured(d)).toEqual(oracleOr(d, plan));
  });
});

describe('guard: more than 5 minutes above 200 rpm needs coordination (windows [t − 60 s, t) holding more than 200)', () => {
  it.each([
    { name: 'exactly 200 rpm for an hour', phases: [flat('1h', 200)], status: 'ok', says: 'never above 200 rpm' },
    {
      name: '201 rpm for 10m',
      phases: [flat('10m', 201)],
      status: 'refused',
      says: 'more than 200 requests in the minute before each moment for 9m',
    },
    // From idle, 250 rpm puts 201 requests in the last minute only after 48 s.
    {
      name: '250 rpm for 5m (above from 48 s to 5m11.76s)',
      phases: [flat('5m', 250)],
      status: 'ok',
      says: 'at most 4m23.76s above 200 rpm (48s – 5m11.76s, phase p)',
    },
    {
      name: '250 rpm for 6m',
      phases: [flat('6m', 250)],
      status: 'refused',
      says: 'for 5m23.76s from 48s to 6m11.76s (phase p)',
    },
    // Continuous rates cross 200 exactly 30 s into the spike and 30 s after it: exactly 5 minutes; the discrete counts
    // make it 4m59.6s, never more.
    {
      name: 'the documented spike, 5m at 300 between 100 rpm phases',
      phases: DOCUMENTED_SPIKE,
      status: 'ok',
      says: 'at most 4m59.6s above 200 rpm (2m30.2s – 7m29.8s, phases spike, recover)',
    },
    {
      name: 'the same spike 2 s longer',
      phases: [flat('2m', 100, 'warm'), flat('5m2s', 300, 'spike'), flat('2m', 100, 'recover')],
      status: 'refused',
      says: 'for 5m1.6s from 2m30.2s to 7m31.8s',
    },
    {
      name: 'ten repeats of 5m at 300 and 1m at 200 (a dip does not reset the clock)',
      phases: TEN_REPEATS,
      status: 'refused',
      says: 'for 59m19.8s from 40s to 59m59.8s (phases hot1, dip1, hot2, …, hot10, dip10: 20 phases)',
    },
    {
      name: 'a dip shorter than a minute',
      phases: [flat('4m', 250, 'a'), flat('30s', 100, 'dip'), flat('4m', 250, 'b')],
      status: 'refused',
      says: '(phases a, dip, b)',
    },
    // A dip resets the clock only when it lasts as long as the rule's 5 minutes: shorter ones count in.
    {
      name: 'a dip of a full minute at 100 rpm',
      phases: [flat('4m', 250, 'a'), flat('1m', 100, 'rest'), flat('4m', 250, 'b')],
      status: 'refused',
      says: 'for 8m23.76s from 48s to 9m11.76s',
    },
    {
      name: 'a dip of two minutes',
      phases: [flat('5m', 300, 'a'), flat('2m', 100, 'rest'), flat('5m', 300, 'b')],
      status: 'refused',
      says: 'for 11m39.8s from 40s to 12m19.8s',
    },
    {
      name: 'a dip of six minutes',
      phases: [flat('5m', 300, 'a'), flat('6m', 100, 'rest'), flat('5m', 300, 'b')],
      status: 'ok',
      says: 'at most 4m49.8s above 200 rpm (40s – 5m29.8s, phases a, rest)',
    },
    {
      name: 'a ramp 100→300 over 10m',
      phases: [{ name: 'r', duration: '10m', fromRpm: 100, toRpm: 300 }],
      status: 'ok',
      says: 'above 200 rpm (5m30',
    },
    {
      name: 'a ramp 100→300 over 11m',
      phases: [{ name: 'r', duration: '11m', fromRpm: 100, toRpm: 300 }],
      status: 'refused',
      says: '(phase r)',
    },
    {
      name: 'a ramp down 300→100 after 3m at 300',
      phases: [flat('3m', 300, 'hold'), { name: 'down', duration: '6m', fromRpm: 300, toRpm: 100 }],
      status: 'refused',
      says: '(phases hold, down)',
    },
  ])('$name → $status', ({ phases, status, says }) => {
    const plan = planOf({ phases });
    const d = evaluateGuard(plan, { startAtMs: AT });
    expect(statusOf(d, 'coordination')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'coordination')!.message).toContain(says);
    expect(measured(d).above).toEqual(oracleOr(d, plan).above);
  });

  it('states the rule it applied when it refuses', () => {
    const d = evaluateGuard(planOf({ phases: TEN_REPEATS }), { startAtMs: AT });
    expect(d.traffic.longestAboveCoordinationRpm).toMatchObject({
      startMs: 40_000,
      endMs: 3_599_800,
      durationMs: 3_559_800,
    });
    expect(reasonOf(d, 'coordination')).toMatch(
      /^coordination: the plan sends more than 200 requests in the minute before each moment for 59m19.8s from 40s to 59m59.8s \(phases hot1, dip1, hot2, …, hot10, dip10: 20 phases\), more than 5 minutes \(spec: "Traffic above 200 requests per minute for more than 5 minutes is coordinated with support in advance\."; dips shorter than a minute count in\); coordinate with support/,
    );
  });

  it('judges Poisson plans on their actual arrivals (seeded), not on their rate', () => {
    const phases = [flat('2m', 100, 'a'), flat('5m20s', 250, 'b'), flat('2m', 100, 'c')];
    const poisson = (seed: number) => planOf({ phases, arrivals: { process: 'poisson', seed } });
    // At a constant 250 rpm this is just under 5 minutes above 200; the draws of some seeds stretch it past 5 minutes.
    expect(statusOf(evaluateGuard(planOf({ phases }), { startAtMs: AT }), 'coordination')).toBe('ok');
    const decisions = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => evaluateGuard(poisson(seed), { startAtMs: AT }));
    for (const [i, d] of decisions.entries()) {
      const above = d.traffic.longestAboveCoordinationRpm;
      expect(statusOf(d, 'coordination')).toBe(above !== null && above.durationMs > 5 * MINUTE ? 'refused' : 'ok');
      expect(measured(d).above).toEqual(oracle(allArrivals(poisson(i + 1)), 1, 200, 300).above);
    }
    expect(new Set(decisions.map((d) => statusOf(d, 'coordination'))).size).toBe(2);
  });

  it('counts the worst case of the retry budget, the resend after a token renewal included', () => {
    const on429 = { policy: 'retry', maxAttempts: 2 };
    const d = evaluateGuard(planOf({ phases: [flat('6m', 120)], on429 }), { startAtMs: AT });
    // 120 first attempts in a minute, plus the retries of every arrival in the 106 s before it (16 s timeout + 30 s
    // maxDelay).
    expect(d.traffic).toMatchObject({ worstCaseFactor: 2, peakRpm: 332 });
    expect(reasonOf(d, 'coordination')).toContain(
      '(worst case: on429 retry with maxAttempts 2: each arrival counts once per attempt, and its retries — after a 429, or the resend after a token renewal — may land up to 46s after it, (maxAttempts − 1) × (timeout + maxDelay), so every minute they could reach counts them)',
    );
    expect(reasonOf(d, 'coordination')).toContain('add coordination: { reference: <case id> }');
    expect(
      evaluateGuard(planOf({ phases: [flat('6m', 120)], on429: { policy: 'record', maxAttempts: 2 } }), {
        startAtMs: AT,
      }).allowed,
    ).toBe(true);
  });

  it('lets a coordinated plan through and names the reference', () => {
    const d = decide(
      { target: PRODUCTION, phases: [flat('20m', 250)], coordination: { reference: 'CASE-77' } },
      '2026-11-20T10:00:00Z',
    );
    expect(d.allowed).toBe(true);
    expect(d.checks.find((c) => c.rule === 'coordination')!.message).toContain('coordinated with support (CASE-77)');
  });
});

describe('guard: the documented envelope (300 rpm, 5 minutes at 300, 128 in flight) and raised limits', () => {
  const coordination = { reference: 'CASE-9' };
  it.each([
    // 1,500 requests 200 ms apart: 4m59.8s from the first to the last.
    {
      name: '300 rpm for 5m',
      extra: { phases: [flat('5m', 300)] },
      status: 'ok',
      says: 'inside the documented envelope (peak 300 rpm, at most 4m59.8s at 300 rpm (0s – 4m59.8s, phase p), maxInFlight 128)',
    },
    {
      name: '300 rpm for 6m',
      extra: { phases: [flat('6m', 300)] },
      status: 'refused',
      says: 'it stays at 300 rpm for 5m59.8s from 0s to 5m59.8s (phase p), more than 5 minutes',
    },
    {
      name: '300 rpm for 5m2s',
      extra: { phases: [flat('5m2s', 300)] },
      status: 'refused',
      says: 'it stays at 300 rpm for 5m1.8s',
    },
    // 5m0.8s from the first request to the last: an excess under a second is the measure's resolution.
    {
      name: '300 rpm for 5m1s',
      extra: { phases: [flat('5m1s', 300)] },
      status: 'ok',
      says: 'at most 5m0.8s at 300 rpm',
    },
    // The first 100 rpm request, 200 ms after the last 300 rpm one, completes a minute of 300: 1,501 requests, exactly
    // 5 minutes.
    {
      name: 'the documented spike between 100 rpm phases',
      extra: { phases: DOCUMENTED_SPIKE },
      status: 'ok',
      says: 'at most 5m at 300 rpm (2m – 7m, phases spike, recover)',
    },
    {
      name: 'ten 5-minute spikes with 1-minute dips at 200 rpm',
      extra: { phases: TEN_REPEATS },
      status: 'refused',
      says: 'it stays at 300 rpm for 59m',
    },
    // Each 200 rpm neighbour's nearest request completes a minute of 300: 5m0.6s, within the measure's resolution
    // (whole seconds).
    {
      name: 'exactly 5 minutes at 300 between 200 rpm phases',
      extra: { phases: [flat('2m', 200, 'burst'), flat('5m', 300, 'spike'), flat('2m', 200, 'after')], coordination },
      status: 'ok',
      says: 'at most 5m0.6s at 300 rpm',
    },
    {
      name: 'a peak of 301 rpm',
      extra: { phases: [flat('1m', 301)] },
      status: 'refused',
      says: 'it peaks at 301 rpm (301 requests in the minute from 0s), above 300 rpm',
    },
    {
      name: 'a ramp to 360 rpm over 2m (295 in its busiest minute)',
      extra: { phases: [{ name: 'r', duration: '2m', fromRpm: 100, toRpm: 360 }] },
      status: 'ok',
      says: 'peak 295 rpm, never at 300 rpm',
    },
    {
      name: 'a ramp 240→360 over 2m',
      extra: { phases: [{ name: 'r', duration: '2m', fromRpm: 240, toRpm: 360 }] },
      status: 'refused',
      says: 'it peaks at 330 rpm',
    },
    {
      name: 'maxInFlight 129',
      extra: { maxInFlight: 129 },
      status: 'refused',
      says: 'maxInFlight 129 is above 128 in flight',
    },
    {
      name: '100 rpm with 4 attempts per arrival',
      extra: { phases: [flat('1m', 100)], on429: { policy: 'retry', maxAttempts: 4 } },
      status: 'refused',
      says: 'it peaks at 400 rpm (400 requests in the minute from 0s), above 300 rpm (worst case',
    },
    {
      name: '30 rpm with 4 attempts per arrival',
      extra: { phases: [flat('10m', 30)], on429: { policy: 'retry', maxAttempts: 4, maxDelay: '5s' } },
      status: 'ok',
      says: 'peak 184 rpm',
    },
    {
      name: '500 rpm for 20m inside raised limits',
      extra: {
        phases: [flat('20m', 500)],
        maxInFlight: 256,
        limits: { spikeRpm: 600, spikeMinutes: 10, maxInFlight: 256, reference: 'CASE-RAISE-1' },
      },
      status: 'ok',
      says: 'inside the limits raised by support (CASE-RAISE-1)',
    },
    {
      name: '600 rpm for 10m2s above raised limits',
      extra: { phases: [flat('10m2s', 600)], limits: { spikeRpm: 600, spikeMinutes: 10, reference: 'CASE-RAISE-1' } },
      status: 'refused',
      says: 'it stays at 600 rpm for 10m1.9s',
    },
    {
      name: '650 rpm above raised limits',
      extra: { phases: [flat('1m', 650)], limits: { spikeRpm: 600, reference: 'CASE-RAISE-1' } },
      status: 'refused',
      says: 'exceeds the limits raised by support (CASE-RAISE-1: up to 600 rpm for 5 minutes, 128 in flight): it peaks at 650 rpm',
    },
  ])('$name → $status', ({ extra, status, says }) => {
    const plan = planOf({ coordination, ...extra });
    const d = evaluateGuard(plan, { startAtMs: AT });
    expect(statusOf(d, 'envelope')).toBe(status);
    expect(d.checks.find((c) => c.rule === 'envelope')!.message).toContain(says);
    expect(measured(d)).toEqual(oracleOr(d, plan));
  });

  it('judges a Poisson plan at 300 rpm on its draws: some minutes hold more than 300', () => {
    const d = evaluateGuard(
      planOf({ coordination, phases: [flat('3m', 300)], arrivals: { process: 'poisson', seed: 2 } }),
      { startAtMs: AT },
    );
    expect(d.traffic.peakRpm).toBeGreaterThan(300);
    expect(statusOf(d, 'envelope')).toBe('refused');
  });
});

describe('guard: targets and time scale', () => {
  const at = '2026-11-20T10:00:00Z';
  it.each([
    { name: 'the embedded mock', target: { environment: 'mock' }, allowed: true },
    { name: 'a mock on 127.0.0.1', target: { environment: 'mock', baseUrl: 'http://127.0.0.1:9000' }, allowed: true },
    { name: 'a mock on 127.3.2.1', target: { environment: 'mock', baseUrl: 'http://127.3.2.1:9000' }, allowed: true },
    { name: 'a mock on [::1]', target: { environment: 'mock', baseUrl: 'http://[::1]:9000' }, allowed: true },
    { name: 'a mock on localhost', target: { environment: 'mock', baseUrl: 'http://localhost:9000' }, allowed: true },
    {
      name: 'a mock on a LAN address',
      target: { environment: 'mock', baseUrl: 'http://10.0.0.5:9000' },
      allowed: false,
    },
    {
      name: 'an undeclared environment at a public URL',
      target: { baseUrl: 'https://api.example.com' },
      allowed: false,
    },
    {
      name: 'production at a loopback URL',
      target: { environment: 'production', baseUrl: 'http://127.0.0.1:9000' },
      allowed: false,
    },
    // Loopback in disguise (an address that reaches this machine under another spelling): the same test for mock and
    // real targets.
    {
      name: 'sandbox at [::ffff:127.0.0.1]',
      target: { environment: 'sandbox', baseUrl: 'http://[::ffff:127.0.0.1]:9000' },
      allowed: false,
    },
    {
      name: 'production at 0.0.0.0',
      target: { environment: 'production', baseUrl: 'http://0.0.0.0:9000' },
      allowed: false,
    },
    {
      name: 'production at localhost.',
      target: { environment: 'production', baseUrl: 'http://localhost.:9000' },
      allowed: false,
    },
    {
      name: 'sandbox at a.localhost',
      target: { environment: 'sandbox', baseUrl: 'http://a.localhost:9000' },
      allowed: false,
    },
    {
      name: 'a mock on [::ffff:127.0.0.1]',
      target: { environment: 'mock', baseUrl: 'http://[::ffff:127.0.0.1]:9000' },
      allowed: true,
    },
    { name: 'a mock on 0.0.0.0', target: { environment: 'mock', baseUrl: 'http://0.0.0.0:9000' }, allowed: true },
    {
      name: 'a mock on a.localhost',
      target: { environment: 'mock', baseUrl: 'http://a.localhost:9000' },
      allowed: true,
    },
    {
      name: 'a mock on 127.0.0.1.example.com',
      target: { environment: 'mock', baseUrl: 'http://127.0.0.1.example.com:9000' },
      allowed: false,
    },
    {
      name: 'production at localhost.example.com',
      target: { environment: 'production', baseUrl: 'http://localhost.example.com' },
      allowed: true,
    },
    { name: 'production at a public URL', target: PRODUCTION, allowed: true },
  ])('$name → allowed $allowed', ({ target, allowed }) => {
    const d = decide({ target }, at);
    expect(d.allowed).toBe(allowed);
    expect(statusOf(d, 'target')).toBe(allowed ? 'ok' : 'refused');
  });

  it('names what is wrong with a non-loopback mock', () => {
    expect(reasonOf(decide({ target: { baseUrl: 'https://api.example.com' } }, at), 'target')).toBe(
      'target: target.baseUrl https://api.example.com is not loopback, but target.environment is mock (the default when none is declared); a mock runs on loopback (127.0.0.0/8, 0.0.0.0, ::1, ::, those IPv4 addresses inside IPv6, localhost, *.localhost) — to test a real service, declare target.environment: sandbox or production',
    );
  });

  it('judges a loopback URL as real only with the test switch, and then applies every rule', () => {
    const target = { environment: 'sandbox', baseUrl: 'http://127.0.0.1:9000' };
    const d = decide({ target }, at, { loopbackAsReal: true });
    expect(statusOf(d, 'target')).toBe('ok');
    expect(d.real).toBe(true);
    expect(statusOf(d, 'notice')).toBe('refused');
  });

  it('judges a declared loopback tunnel as the real environment it reaches, by every rule, in every loopback spelling', () => {
    for (const baseUrl of [
      'http://127.0.0.1:8443',
      'http://localhost:8443',
      'http://[::1]:8443',
      'http://127.1:8443',
    ]) {
      const d = decide({ target: { environment: 'sandbox', baseUrl, tunnel: true }, maxInFlight: 200 }, at);
      expect(d.real).toBe(true);
      expect(statusOf(d, 'target')).toBe('ok');
      expect(d.checks.find((c) => c.rule === 'target')!.message).toContain('a loopback tunnel to the real sandbox');
      expect([statusOf(d, 'notice'), statusOf(d, 'envelope')]).toEqual(['refused', 'refused']);
    }
    const far = decide({ target: { ...PRODUCTION, tunnel: true } }, at);
    expect(reasonOf(far, 'target')).toContain(
      'target.tunnel is true, but target.baseUrl https://api.example.com is not loopback',
    );
    expect(reasonOf(decide({ target: { ...PRODUCTION, baseUrl: 'http://127.0.0.1:8443' } }, at), 'target')).toContain(
      'declare target.tunnel: true',
    );
  });

  it('refuses a time scale other than 1 against a real environment, not against a mock', () => {
    expect(reasonOf(decide({ target: PRODUCTION }, at, { timeScale: 20 }), 'time-scale')).toContain(
      '--time-scale 20 against production: a real service runs in real time',
    );
    expect(decide({ target: { environment: 'mock' } }, at, { timeScale: 20 }).allowed).toBe(true);
  });

  it('does not apply the traffic rules to a mock', () => {
    const d = decide({ target: { environment: 'mock' }, phases: [flat('30m', 1000)], maxInFlight: 1000 }, at);
    expect(d.allowed).toBe(true);
    expect(['notice', 'notice-window', 'coordination', 'envelope'].map((r) => statusOf(d, r))).toEqual(
      Array(4).fill('not-applicable'),
    );
  });

  it('lists every refusal at once', () => {
    const d = decide({ target: SANDBOX, phases: [flat('10m', 400)], maxInFlight: 200 }, at, { timeScale: 5 });
    expect(d.reasons.map((r) => r.split(':')[0])).toEqual(['time-scale', 'notice', 'coordination', 'envelope']);
  });
});

describe('guard: what the review found (a dip must last as long as the rule; retries land later)', () => {
  const refusedRules = (d: GuardDecision): string[] =>
    d.checks.filter((c) => c.status === 'refused').map((c) => c.rule);

  it.each([
    // 10 × (5 min at 300 rpm + a minute that plans nothing): 50 minutes at 300 in the hour.
    {
      name: 'spikes with silent minutes between',
      phases: repeat(10, (i) => [flat('5m', 300, `hot${i}`), flat('1m', 0.001, `quiet${i}`)]),
    },
    // 10 × (5m21s at 299 rpm + 40 s of silence): 266 rpm on average for an hour.
    {
      name: '299 rpm with 40 s silences',
      phases: repeat(10, (i) => [flat('5m21s', 299, `hot${i}`), flat('40s', 0.001, `quiet${i}`)]),
    },
    // 4 min at 250, 1 min at 100, 4 min at 250: 8 of 9 minutes at 250 rpm.
    {
      name: 'two 4-minute stretches a minute apart',
      phases: [flat('4m', 250, 'a'), flat('1m', 100, 'dip'), flat('4m', 250, 'b')],
    },
  ])('refuses $name without coordination: a dip shorter than 5 minutes does not reset the clock', ({ phases }) => {
    const d = evaluateGuard(planOf({ target: PRODUCTION, phases }), { startAtMs: AT });
    expect(refusedRules(d)).toContain('coordination');
  });

  it('lets a dip of 5 minutes or more reset the clock: two documented spikes with 5 minutes of recovery', () => {
    const phases = [
      flat('2m', 100, 'a'),
      flat('5m', 300, 'spike1'),
      flat('6m', 100, 'recover'),
      flat('5m', 300, 'spike2'),
      flat('2m', 100, 'b'),
    ];
    const d = evaluateGuard(planOf({ target: PRODUCTION, phases }), { startAtMs: AT });
    expect(refusedRules(d)).toEqual([]);
  });

  it('counts retries where they can land, up to (maxAttempts − 1) × (timeout + maxDelay) after their arrival', () => {
    // Two bursts of 100 requests 61 s apart: each minute holds 100 first attempts, but the retries of
    // the first burst (waiting up to 2 min) can land in the second burst's minute: 300 requests.
    const phases = [flat('1s', 6000, 'a'), flat('60s', 0.001, 'gap'), flat('1s', 6000, 'b')];
    const d = evaluateGuard(
      planOf({ target: PRODUCTION, phases, on429: { policy: 'retry', maxAttempts: 2, maxDelay: '2m' } }),
      { startAtMs: AT },
    );
    expect(d.traffic.peakRpm).toBeGreaterThanOrEqual(300);
    expect(refusedRules(d)).toContain('envelope');
    // Without retries, 101: the gap phase's one arrival at its start (the first burst's count ends on a whole number).
    const record = evaluateGuard(planOf({ target: PRODUCTION, phases }), { startAtMs: AT });
    expect(record.traffic.peakRpm).toBe(101);
  });
});
