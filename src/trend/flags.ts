/**
 * Which runs `compare` would flag: each run against one fixed reference (the scenario's first run, or a baseline), so
 * that a slow creep and a lasting regression stay in sight, with compare's own statistics
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
  /** The reference it was compared with; null for the reference itself and for a run not compared. */
  readonly against: TrendPoint | null;
  /** Why the run was not compared with the reference (another plan, environment, mock profile or time scale). */
  readonly notCompared: string | null;
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

/**
 * Why a run is no measure of the same service under the same load as the reference, or null when it is: a change
 * there is a change of the test, not of the service.
 */
function unlike(reference: TrendSummary, run: TrendSummary): string | null {
  const differences: string[] = [];
  if (reference.environment !== run.environment)
    differences.push(`environment ${run.environment}, the reference's ${reference.environment}`);
  const profile = (s: TrendSummary): string => s.target.profile ?? 'none';
  if (profile(reference) !== profile(run))
    differences.push(`mock profile ${profile(run)}, the reference's ${profile(reference)}`);
  if (reference.timeScale !== run.timeScale)
    differences.push(`time scale ${run.timeScale}, the reference's ${reference.timeScale}`);
  if (reference.planIdentity !== run.planIdentity)
    differences.push('another plan (phases, rates, seeds or time scale)');
  return differences.length === 0 ? null : differences.join('; ');
}

function runNotes(run: TrendSummary, untested: readonly string[]): string[] {
  const notes: string[] = [];
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
    notCompared: null,
    findings,
    flagged: findings.some((f) => f.kind === 'regression'),
    notes: runNotes(run.summary, untested),
  };
}

function hasBothIntervals(base: TrendPoint, run: TrendPoint, phase: string): boolean {
  const bounded = (i: SideFigures['p95Interval'] | undefined): boolean =>
    i !== undefined && i !== null && i[0] !== null && i[1] !== null;
  const baseIntervals = p95Intervals(base.summary, phase);
  return [...p95Intervals(run.summary, phase)].some(([band, i]) => bounded(i) && bounded(baseIntervals.get(band)));
}

/**
 * The reference is not compared with itself: the same run, or the baseline's folder listed too. Two runs that share a
 * start and a plan (shards given one --start-at) are still two runs.
 */
const sameRun = (a: TrendPoint, b: TrendPoint): boolean =>
  a === b || (a.realDir !== undefined && a.realDir === b.realDir);

/**
 * Each run of a scenario against one reference: `baseline` when given, else the scenario's first run. Each run is one
 * comparison, as one `loadproof compare` is; a run unlike the reference is not compared (and never flagged).
 */
export function flagRuns(runs: readonly TrendPoint[], options: FlagOptions, baseline?: TrendPoint): RunFlag[] {
  const reference = baseline ?? runs[0];
  return runs.map((run) => {
    const none = { against: null, findings: [], flagged: false, notes: [] };
    if (reference === undefined || sameRun(reference, run)) return { ...none, notCompared: null };
    const why = unlike(reference.summary, run.summary);
    if (why !== null) return { ...none, notCompared: why };
    return flagRun(reference, run, options);
  });
}
