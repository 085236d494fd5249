/**
 * A run against a baseline, phase by phase (matched by name): the change in p50 / p95 / p99 and in
 * the 429, 504 and error rates. A regression is flagged only when it is clear:
 *  - p95: the run's 95 % interval lies wholly above the baseline's, by more than the tolerance (its
 *    lower end over the baseline's upper end × (1 + tolerance)). Two p95s that merely differ, or whose
 *    intervals overlap, are no clear change: the same service measured twice differs too. A late generator
 *    (its run's verdict notes it over its budget for the phase) only inflates its own run's latency, as the
 *    verdict's percentile check judges it: a late run's regression stands only when it survives taking the
 *    generator's worst lateness off that run's interval, a late baseline's improvement only when it survives
 *    taking it off the baseline's. A late baseline cannot make a regression, nor a late run an improvement.
 *  - a rate (429s, 504s, other failures): Fisher's exact test says the run's rate is higher than chance
 *    explains, with Holm's correction over every rate tested (phases × 3), so that many phases do not
 *    make a false alarm likely. The test takes requests as independent; 429s and 504s come in bursts,
 *    so a single burst can still read as a change (docs/guides/ci-regression.md says so).
 * The intervals are the verdict's (order statistics widened by sectioning over time blocks, on latency
 * capped above the slowest answer so that unanswered requests do not blow the spread up), on the
 * steady state of each phase, from each run folder judged again offline.
 */
import { TimeScale } from '../core/index.js';
import type { Slice } from '../recorder/index.js';
import { fisherGreater } from './fisher.js';
import { generatorHealth, worstLatenessMs } from './generator-budget.js';
import { slowestAnsweredMs } from './percentile-check.js';
import { quantileInterval } from './quantile-interval.js';
import type { Summary } from './summary.js';

/** A judged run: its summary, and each phase's steady-state sample (the recorder's, in plan order). */
export interface ComparedRun {
  readonly summary: Summary;
  readonly steady: readonly Slice[];
}

export interface CompareOptions {
  /** How far above the baseline's interval the run's must lie to count (0.1: 10 %). */
  readonly tolerance: number;
  /** The one-sided p-value under which a rate's rise is more than chance (0.01 by default). */
  readonly alpha?: number;
}

export const DEFAULT_ALPHA = 0.01;

export interface RateFigure {
  readonly count: number;
  readonly of: number;
}

export interface SideFigures {
  readonly sent: number;
  /** Steady-state latency (answers other than 429), model ms; null without data. */
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  /** The p95's 95 % interval; a side is null when too few requests bound it. */
  readonly p95Interval: readonly [number | null, number | null] | null;
  /** Over the requests sent; `errors`: every other failure (timeouts, resets, refused connections, malformed answers, other statuses). */
  readonly rates: { readonly http429: RateFigure; readonly http504: RateFigure; readonly errors: RateFigure };
}

export type Figure = 'p95' | 'http429' | 'http504' | 'errors';

export interface Finding {
  readonly figure: Figure;
  readonly kind: 'regression' | 'improvement';
  readonly text: string;
}

export interface PhaseComparison {
  readonly phase: string;
  readonly baseline: SideFigures;
  readonly run: SideFigures;
  readonly findings: readonly Finding[];
}

export interface Comparison {
  readonly tolerance: number;
  readonly alpha: number;
  readonly baseline: {
    readonly scenario: string;
    readonly startedAt: string;
    readonly planIdentity: string;
    readonly timeScale: number;
  };
  readonly run: {
    readonly scenario: string;
    readonly startedAt: string;
    readonly planIdentity: string;
    readonly timeScale: number;
  };
  readonly phases: readonly PhaseComparison[];
  readonly onlyInBaseline: readonly string[];
  readonly onlyInRun: readonly string[];
  /** Any clear regression. */
  readonly regression: boolean;
  /** What the reader should know: a different plan, unmatched phases, a side too small to bound. */
  readonly notes: readonly string[];
}

type Phase = Summary['phases'][number];

const RATE_NAMES: Record<Exclude<Figure, 'p95'>, string> = {
  http429: '429 rate',
  http504: '504 rate',
  errors: 'rate of other failures',
};

/** `capMs`: sectioning is done on min(latency, cap), as the verdict does (quantileInterval). */
function figures(phase: Phase, steady: Slice, capMs: number): SideFigures {
  const interval = quantileInterval({ all: steady.latencyExcl429, blocks: steady.latencyExcl429Blocks }, 0.95, capMs);
  const latency = phase.steadyLatencyMs;
  const shown = (v: number | null | 'unanswered'): number | null => (typeof v === 'number' ? v : null);
  const failed = Object.values(phase.errors).reduce((a, b) => a + b, 0) + phase.outcomes.http_other;
  return {
    sent: phase.sent,
    p50Ms: shown(latency.p50),
    p95Ms: shown(latency.p95),
    p99Ms: shown(latency.p99),
    p95Interval: interval === undefined ? null : [interval.lowerMs, interval.upperMs],
    rates: {
      http429: { count: phase.outcomes.http_429, of: phase.sent },
      http504: { count: phase.outcomes.http_504, of: phase.sent },
      errors: { count: failed, of: phase.sent },
    },
  };
}

const ms = (v: number | null): string =>
  v === null ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${Math.round(v)}ms`;
const intervalText = (i: SideFigures['p95Interval']): string => (i === null ? 'no data' : `${ms(i[0])}–${ms(i[1])}`);
const percent = (r: RateFigure): string =>
  `${r.of === 0 ? '—' : ((100 * r.count) / r.of).toFixed(2)} % (${r.count} of ${r.of})`;

/** Each side's generator lateness to take off its own p95 interval (model ms as its latency counts it; 0 when on time). */
interface Lateness {
  readonly base: number;
  readonly run: number;
}

const ON_TIME: Lateness = { base: 0, run: 0 };

/**
 * A clear change of p95. A side's lateness comes off its own interval only where it could have made the change:
 * off the run's for a regression, off the baseline's for an improvement.
 */
function p95Findings(base: SideFigures, run: SideFigures, tolerance: number, late: Lateness = ON_TIME): Finding[] {
  const [baseLow, baseHigh] = base.p95Interval ?? [null, null];
  const [runLow, runHigh] = run.p95Interval ?? [null, null];
  const what = `p95 ${ms(run.p95Ms)} (interval ${intervalText(run.p95Interval)}) against ${ms(base.p95Ms)} (${intervalText(base.p95Interval)})`;
  const pct = Math.round(tolerance * 100);
  const off = (side: string, lateMs: number): string =>
    lateMs > 0 ? `, even with ${side}'s worst generator lateness (${ms(lateMs)}) taken off` : '';
  if (runLow !== null && baseHigh !== null && runLow - late.run > baseHigh * (1 + tolerance)) {
    return [
      {
        figure: 'p95',
        kind: 'regression',
        text: `${what}: the new interval lies above the baseline's by more than ${pct} %${off('the run', late.run)}`,
      },
    ];
  }
  if (runHigh !== null && baseLow !== null && runHigh * (1 + tolerance) < baseLow - late.base) {
    return [
      {
        figure: 'p95',
        kind: 'improvement',
        text: `${what}: the new interval lies below the baseline's by more than ${pct} %${off('the baseline', late.base)}`,
      },
    ];
  }
  return [];
}

interface RateTest {
  readonly phase: number;
  readonly figure: Exclude<Figure, 'p95'>;
  readonly kind: Finding['kind'];
  readonly p: number;
  readonly text: string;
}

/** Each phase's three rates, both ways: Fisher's exact test, one-sided. */
function rateTests(phase: number, base: SideFigures, run: SideFigures): RateTest[] {
  return (['http429', 'http504', 'errors'] as const).flatMap((figure) => {
    const b = base.rates[figure];
    const r = run.rates[figure];
    const what = `${RATE_NAMES[figure]} ${percent(r)} against ${percent(b)}`;
    return [
      {
        phase,
        figure,
        kind: 'regression' as const,
        p: fisherGreater(b.count, b.of, r.count, r.of),
        text: `${what}: higher than chance explains`,
      },
      {
        phase,
        figure,
        kind: 'improvement' as const,
        p: fisherGreater(r.count, r.of, b.count, b.of),
        text: `${what}: lower than chance explains`,
      },
    ];
  });
}

/** Holm's step-down over one direction's tests: those rejected at family-wise level `alpha`. */
function holm(tests: readonly RateTest[], alpha: number): RateTest[] {
  const sorted = [...tests].sort((a, b) => a.p - b.p);
  const rejected: RateTest[] = [];
  for (const [i, t] of sorted.entries()) {
    if (t.p >= alpha / (sorted.length - i)) break;
    rejected.push(t);
  }
  return rejected;
}

/** Whether the run's verdict noted its generator late for the phase (over its budget: src/judge/verdict.ts). */
function generatorLate(summary: Summary, phase: string): boolean {
  return summary.verdict.notes.some((n) => n.startsWith(`phase ${phase}: the generator was late (`));
}

/**
 * The generator's worst lateness in a phase's steady state as its latency counts it (model ms), as the verdict
 * takes it off (its send-lag max plus the event loop's max delay, once at time scale k); 0 when its verdict did
 * not note it late for the phase.
 */
function latenessOf(summary: Summary, phase: string, steady: Slice): number {
  if (!generatorLate(summary, phase)) return 0;
  const { eventLoopDelayP99Ms: p99, eventLoopDelayMaxMs: max } = summary.generator;
  return worstLatenessMs(steady, generatorHealth(TimeScale.of(summary.timeScale), p99, max));
}

const identity = (s: Summary) => ({
  scenario: s.scenario,
  startedAt: s.startedAt,
  planIdentity: s.planIdentity,
  timeScale: s.timeScale,
});

export function compareRuns(baseline: ComparedRun, run: ComparedRun, options: CompareOptions): Comparison {
  const { tolerance } = options;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance))
    throw new RangeError(`tolerance: expected a fraction ≥ 0, got ${tolerance}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha: expected a probability between 0 and 1, got ${alpha}`);
  const baseIndex = new Map(baseline.summary.phases.map((p, i) => [p.name, i]));
  const runNames = new Set(run.summary.phases.map((p) => p.name));
  const compared: { name: string; base: SideFigures; run: SideFigures; findings: Finding[] }[] = [];
  const notes: string[] = [];
  for (const [i, phase] of run.summary.phases.entries()) {
    const j = baseIndex.get(phase.name);
    if (j === undefined) continue;
    const baseSteady = baseline.steady[j]!;
    const runSteady = run.steady[i]!;
    // One cap for both sides: above the slowest answer of either, so that only unanswered requests are capped.
    const capMs =
      2 * Math.max(slowestAnsweredMs(baseSteady.latencyExcl429), slowestAnsweredMs(runSteady.latencyExcl429), 1);
    const base = figures(baseline.summary.phases[j]!, baseSteady, capMs);
    const now = figures(phase, runSteady, capMs);
    const unbounded = (f: SideFigures): boolean => f.p95Interval === null || f.p95Interval.includes(null);
    if (unbounded(base) || unbounded(now)) {
      const side = unbounded(base) && unbounded(now) ? 'either run' : unbounded(base) ? 'the baseline' : 'the run';
      notes.push(
        `${phase.name}: too few steady-state answers in ${side} to bound a p95 on both sides (${base.p95Interval === null || now.p95Interval === null ? 'none at all' : 'too few'}); its p95 can show no clear change`,
      );
    }
    // A late generator inflates its own run's latency only: a change it could have made (a late run's regression,
    // a late baseline's improvement) stands when it survives taking that run's worst lateness off, as the verdict's
    // percentile check does. A change the lateness works against stands as measured (its rates stand too).
    const late: Lateness = {
      base: latenessOf(baseline.summary, phase.name, baseSteady),
      run: latenessOf(run.summary, phase.name, runSteady),
    };
    const measured = p95Findings(base, now, tolerance);
    const p95 = p95Findings(base, now, tolerance, late);
    if (measured.length > 0 && p95.length === 0) {
      const side = measured[0]!.kind === 'regression' ? 'the run' : 'the baseline';
      const lateMs = measured[0]!.kind === 'regression' ? late.run : late.base;
      notes.push(
        `${phase.name}: the generator of ${side} was late (its verdict says so): a change of its p95 (${measured[0]!.kind}) is no clear change: with its worst lateness (${ms(lateMs)}) taken off ${side}'s interval, it no longer lies ${measured[0]!.kind === 'regression' ? 'above' : 'below'} the other by more than ${Math.round(tolerance * 100)} %`,
      );
    }
    compared.push({ name: phase.name, base, run: now, findings: p95 });
  }
  // The rates of every phase are one family: Holm's correction keeps the chance of any false alarm under alpha.
  const tests = compared.flatMap((c, i) => rateTests(i, c.base, c.run));
  const family = tests.length / 2;
  for (const kind of ['regression', 'improvement'] as const) {
    for (const t of holm(
      tests.filter((x) => x.kind === kind),
      alpha,
    )) {
      compared[t.phase]!.findings.push({
        figure: t.figure,
        kind,
        text: `${t.text} (Fisher's exact test, one-sided p = ${t.p.toPrecision(2)}; Holm's correction over ${family} rates, family-wise ${alpha})`,
      });
    }
  }
  const phases: PhaseComparison[] = compared.map((c) => ({
    phase: c.name,
    baseline: c.base,
    run: c.run,
    findings: c.findings,
  }));
  const onlyInBaseline = baseline.summary.phases.map((p) => p.name).filter((n) => !runNames.has(n));
  const onlyInRun = run.summary.phases.map((p) => p.name).filter((n) => !baseIndex.has(n));
  if (onlyInBaseline.length > 0) notes.push(`phases only in the baseline, not compared: ${onlyInBaseline.join(', ')}`);
  if (onlyInRun.length > 0) notes.push(`phases only in the run, not compared: ${onlyInRun.join(', ')}`);
  for (const [side, s] of [
    ['the baseline', baseline.summary],
    ['the run', run.summary],
  ] as const) {
    if (s.partial)
      notes.push(
        `${side} is partial: it did not record its end (killed, or still running), and is judged from the events it wrote`,
      );
    else if (s.stopped !== null)
      notes.push(
        `${side} was stopped before its plan ended (${s.stopped.code}): ${s.counts.unsent} of ${s.counts.planned} requests were never sent`,
      );
  }
  if (baseline.summary.target.profile !== run.summary.target.profile)
    notes.push(
      `the mock profiles differ: ${baseline.summary.target.profile ?? 'none'} and ${run.summary.target.profile ?? 'none'}`,
    );
  if (baseline.summary.planIdentity !== run.summary.planIdentity)
    notes.push('the two runs had different plans (scenario, seeds or time scale): phases are compared by name');
  if (baseline.summary.timeScale !== run.summary.timeScale)
    notes.push(
      `time scales differ (${baseline.summary.timeScale} and ${run.summary.timeScale}): both are in model time`,
    );
  if (baseline.summary.environment !== run.summary.environment)
    notes.push(`environments differ: ${baseline.summary.environment} and ${run.summary.environment}`);
  return {
    tolerance,
    alpha,
    baseline: identity(baseline.summary),
    run: identity(run.summary),
    phases,
    onlyInBaseline,
    onlyInRun,
    regression: phases.some((p) => p.findings.some((f) => f.kind === 'regression')),
    notes,
  };
}

/** The file in a run folder that keeps its comparison with --baseline. */
export const COMPARISON_FILE = 'comparison.json';

/** A comparison as a run folder keeps it (comparison.json): with the baseline folder it was made against. */
export interface BaselineComparison extends Comparison {
  readonly baselineDir: string;
}

/**
 * A run's exit with its comparison: a clear regression fails a run that passed or was inconclusive
 * (exit 1); a failed (1), broken (4) or interrupted (130) run keeps its own exit.
 */
export function exitWithComparison(exitCode: number, comparison: Comparison | undefined): number {
  return comparison?.regression === true && (exitCode === 0 || exitCode === 5) ? 1 : exitCode;
}

/** comparison.json read back: the comparison, or a reason it cannot be used. */
export function parseComparison(text: string): BaselineComparison | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const v = value as Partial<BaselineComparison> | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.baselineDir !== 'string' ||
    typeof v.regression !== 'boolean' ||
    typeof v.tolerance !== 'number' ||
    !Array.isArray(v.phases) ||
    !Array.isArray(v.notes)
  ) {
    return 'expected {baselineDir, tolerance, regression, phases[], notes[], …} as loadproof run --baseline writes it';
  }
  return v as BaselineComparison;
}
