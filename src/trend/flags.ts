/**
 * Which runs `compare` would flag: each run against the one before it (or a baseline), with compare's own statistics
 * (src/judge: the p95's clear change between 95 % intervals, Fisher's exact test with Holm's correction for the 429,
 * 504 and other-failure rates). The trend has each run's summary.json, not its events: a p95's interval is the one
 * its verdict gave (steady state, 429s answered at once left out, per load band), and a late generator's worst
 * lateness is its phase's (not only its steady state's), so a late run's regression is taken as compare takes it,
 * or more cautiously.
 */
import { addRateFindings, type ComparedPhase, type Finding, p95Findings, type SideFigures } from '../judge/index.js';
import type { PhaseFigures, TrendPoint } from './series.js';
import type { TrendSummary } from './summary-schema.js';

export interface TrendFinding extends Finding {
  readonly phase: string;
}

export interface RunFlag {
  /** The run it was compared with; null for a scenario's first run without a baseline. */
  readonly against: TrendPoint | null;
  readonly findings: readonly TrendFinding[];
  /** Any clear regression: compare would exit 1. */
  readonly flagged: boolean;
  /** What the reader should know of the comparison (different profiles or plans, p95s that could not be tested). */
  readonly notes: readonly string[];
}

interface FlagOptions {
  readonly tolerance: number;
  readonly alpha: number;
}

/** A phase's p95 intervals from its verdict's documented-target checks, by load band ("" for a phase without). */
function p95Intervals(summary: TrendSummary, phase: string): Map<string, SideFigures['p95Interval']> {
  const found = new Map<string, SideFigures['p95Interval']>();
  for (const check of summary.verdict.checks) {
    if (check.id !== 'latency_p95_target' || check.phase !== phase) continue;
    const bound = (v: number | null | 'unanswered'): number | null => (typeof v === 'number' ? v : null);
    found.set(check.band ?? '', check.interval === null ? null : [bound(check.interval[0]), bound(check.interval[1])]);
  }
  return found;
}

function sideFigures(p: PhaseFigures, interval: SideFigures['p95Interval']): SideFigures {
  return {
    sent: p.sent,
    p50Ms: null,
    p95Ms: p.p95Ms,
    p99Ms: null,
    p95Interval: interval,
    rates: {
      http429: { count: p.http429, of: p.sent },
      http504: { count: p.http504, of: p.sent },
      errors: { count: p.otherFailures, of: p.sent },
    },
  };
}

/**
 * The generator's worst lateness in a phase as its latency counts it (model ms), when its verdict noted it late: the
 * phase's send-lag max and the event loop's max delay, counted once at time scale k (as src/judge generator-budget).
 */
function latenessMs(summary: TrendSummary, phase: string): number {
  if (!summary.verdict.notes.some((n) => n.startsWith(`phase ${phase}: the generator was late (`))) return 0;
  const lagMax = summary.phases.find((p) => p.name === phase)?.sendLagMs.max ?? 0;
  const { eventLoopDelayMaxMs: max, eventLoopDelayP99Ms: p99 } = summary.generator;
  return lagMax / summary.timeScale + (max ?? p99 ?? 0);
}

/** The p95 findings of one phase: band by band, where both runs' verdicts bounded it. */
function phaseP95(base: TrendPoint, run: TrendPoint, p: PhaseFigures, b: PhaseFigures, options: FlagOptions) {
  const baseIntervals = p95Intervals(base.summary, p.name);
  const findings: Finding[] = [];
  const late = { base: latenessMs(base.summary, p.name), run: latenessMs(run.summary, p.name) };
  for (const [band, interval] of p95Intervals(run.summary, p.name)) {
    if (!baseIntervals.has(band)) continue;
    const found = p95Findings(
      sideFigures(b, baseIntervals.get(band)!),
      sideFigures(p, interval),
      options.tolerance,
      late,
    );
    findings.push(...found.map((f) => (band === '' ? f : { ...f, text: `${band} band: ${f.text}` })));
  }
  return findings;
}

function runNotes(base: TrendSummary, run: TrendSummary, untested: readonly string[]): string[] {
  const notes: string[] = [];
  if ((base.target.profile ?? null) !== (run.target.profile ?? null))
    notes.push(`mock profiles differ: ${base.target.profile ?? 'none'} and ${run.target.profile ?? 'none'}`);
  if (base.planIdentity !== run.planIdentity)
    notes.push('different plans (scenario, seeds or time scale): phases compared by name');
  if (base.environment !== run.environment)
    notes.push(`environments differ: ${base.environment} and ${run.environment}`);
  if (run.partial) notes.push('partial: judged from the events it wrote');
  if (untested.length > 0) notes.push(`no p95 interval on both sides, p95 not tested: ${untested.join(', ')}`);
  return notes;
}

/** One run against its reference, phase by phase (matched by name), as compare judges it. */
function flagRun(base: TrendPoint, run: TrendPoint, options: FlagOptions): RunFlag {
  const compared: ComparedPhase[] = [];
  const untested: string[] = [];
  for (const p of run.phases) {
    const b = base.phases.find((x) => x.name === p.name);
    if (b === undefined) continue;
    const p95 = phaseP95(base, run, p, b, options);
    if (p95.length === 0 && !hasBothIntervals(base, run, p.name)) untested.push(p.name);
    compared.push({ name: p.name, base: sideFigures(b, null), run: sideFigures(p, null), findings: p95 });
  }
  addRateFindings(compared, options.alpha);
  const findings = compared.flatMap((c) => c.findings.map((f) => ({ ...f, phase: c.name })));
  return {
    against: base,
    findings,
    flagged: findings.some((f) => f.kind === 'regression'),
    notes: runNotes(base.summary, run.summary, untested),
  };
}

function hasBothIntervals(base: TrendPoint, run: TrendPoint, phase: string): boolean {
  const bounded = (i: SideFigures['p95Interval'] | undefined): boolean =>
    i !== undefined && i !== null && i[0] !== null && i[1] !== null;
  const baseIntervals = p95Intervals(base.summary, phase);
  return [...p95Intervals(run.summary, phase)].some(([band, i]) => bounded(i) && bounded(baseIntervals.get(band)));
}

/** The baseline named among the runs is not compared with itself. */
const sameRun = (a: TrendPoint, b: TrendPoint): boolean =>
  a.summary.startedAt === b.summary.startedAt && a.summary.planIdentity === b.summary.planIdentity;

/** Each run of a scenario against the one before it, or against `baseline` when one is given. */
export function flagRuns(runs: readonly TrendPoint[], options: FlagOptions, baseline?: TrendPoint): RunFlag[] {
  return runs.map((run, i) => {
    const against = baseline ?? (i === 0 ? null : runs[i - 1]!);
    if (against === null || sameRun(against, run)) return { against: null, findings: [], flagged: false, notes: [] };
    return flagRun(against, run, options);
  });
}
