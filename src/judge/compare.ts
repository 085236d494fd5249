/**
 * A run against a baseline, phase by phase (matched by name): the change in p50 / p95 / p99 and in
 * the 429, 504 and error rates. A regression is flagged only when it is clear:
 *  - p95: the run's 95 % interval lies wholly above the baseline's, by more than the tolerance (its
 *    lower end over the baseline's upper end × (1 + tolerance)). Two p95s that merely differ, or whose
 *    intervals overlap, are no clear change: the same service measured twice differs too. A late generator
 *    (its run's verdict notes it over its budget for the phase) only inflates its own run's latency, as the
 *    verdict's percentile check judges it: a late run's regression stands only when it survives taking the
 *    generator's worst lateness off that run's interval, a late baseline's improvement only when it survives
 *    taking it off the baseline's. A late baseline cannot make a regression, nor a late run an improvement. A
 *    regression that does not survive it is inconclusive (could be the tool's), never "no clear change".
 *  - a rate (429s, 504s, other failures): Fisher's exact test says the run's rate is higher than chance
 *    explains, with Holm's correction over every rate tested (phases × 3), so that many phases do not
 *    make a false alarm likely. The test takes requests as independent; 429s and 504s come in bursts,
 *    so a single burst can still read as a change (docs/guides/ci-regression.md says so).
 * The intervals are the verdict's (order statistics widened by sectioning over time blocks, on latency
 * capped above the slowest answer so that unanswered requests do not blow the spread up), on the
 * steady state of each phase, from each run folder judged again offline.
 */
import { type ComparedPhase, comparePhase } from './compare-phase.js';
import { addRateFindings } from './compare-rates.js';
import {
  type ComparedRun,
  type CompareOptions,
  type Comparison,
  DEFAULT_ALPHA,
  type PhaseComparison,
} from './comparison.js';
import type { Summary } from './summary.js';

const identity = (s: Summary) => ({
  scenario: s.scenario,
  startedAt: s.startedAt,
  planIdentity: s.planIdentity,
  timeScale: s.timeScale,
});

/**
 * What the reader should know of the two runs as wholes: unmatched phases, a partial or stopped side, different
 * profiles, plans, time scales or environments.
 */
function runNotes(
  baseline: Summary,
  run: Summary,
  onlyInBaseline: readonly string[],
  onlyInRun: readonly string[],
): string[] {
  const notes: string[] = [];
  if (onlyInBaseline.length > 0) notes.push(`phases only in the baseline, not compared: ${onlyInBaseline.join(', ')}`);
  if (onlyInRun.length > 0) notes.push(`phases only in the run, not compared: ${onlyInRun.join(', ')}`);
  for (const [side, s] of [
    ['the baseline', baseline],
    ['the run', run],
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
  if (baseline.target.profile !== run.target.profile)
    notes.push(`the mock profiles differ: ${baseline.target.profile ?? 'none'} and ${run.target.profile ?? 'none'}`);
  if (baseline.planIdentity !== run.planIdentity)
    notes.push('the two runs had different plans (scenario, seeds or time scale): phases are compared by name');
  if (baseline.timeScale !== run.timeScale)
    notes.push(`time scales differ (${baseline.timeScale} and ${run.timeScale}): both are in model time`);
  if (baseline.environment !== run.environment)
    notes.push(`environments differ: ${baseline.environment} and ${run.environment}`);
  return notes;
}

export function compareRuns(baseline: ComparedRun, run: ComparedRun, options: CompareOptions): Comparison {
  const { tolerance } = options;
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance))
    throw new RangeError(`tolerance: expected a fraction ≥ 0, got ${tolerance}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha: expected a probability between 0 and 1, got ${alpha}`);
  const baseIndex = new Map(baseline.summary.phases.map((p, i) => [p.name, i]));
  const runNames = new Set(run.summary.phases.map((p) => p.name));
  const compared: ComparedPhase[] = [];
  const notes: string[] = [];
  for (const [i, phase] of run.summary.phases.entries()) {
    const j = baseIndex.get(phase.name);
    if (j === undefined) continue;
    compared.push(comparePhase(baseline, run, [i, j], tolerance, notes));
  }
  addRateFindings(compared, alpha);
  const phases: PhaseComparison[] = compared.map((c) => ({
    phase: c.name,
    baseline: c.base,
    run: c.run,
    findings: c.findings,
  }));
  const onlyInBaseline = baseline.summary.phases.map((p) => p.name).filter((n) => !runNames.has(n));
  const onlyInRun = run.summary.phases.map((p) => p.name).filter((n) => !baseIndex.has(n));
  notes.push(...runNotes(baseline.summary, run.summary, onlyInBaseline, onlyInRun));
  const regression = phases.some((p) => p.findings.some((f) => f.kind === 'regression'));
  return {
    tolerance,
    alpha,
    baseline: identity(baseline.summary),
    run: identity(run.summary),
    phases,
    onlyInBaseline,
    onlyInRun,
    regression,
    inconclusive: !regression && phases.some((p) => p.findings.some((f) => f.kind === 'inconclusive')),
    notes,
  };
}
