/**
 * A run stopped before its plan's end (a signal, a failure, a threshold): its figures are of the part it ran, so
 * the trend shows it marked and never compares it with another run, nor another with it.
 */
import type { RunFlag } from './flags.js';
import type { TrendSummary } from './summary-schema.js';

/** "stopped early (interrupted)", or null for a run that ran its whole plan. */
export function stoppedEarly(summary: TrendSummary): string | null {
  if (summary.interrupted === true) return 'stopped early (interrupted)';
  if (summary.stopped !== null && summary.stopped !== undefined) return `stopped early (${summary.stopped.by})`;
  return null;
}

// Its flag cell says why (stoppedEarly), so notCompared (another plan, environment, profile or k) stays null.
const NOT_COMPARED: RunFlag = { against: null, findings: [], flagged: false, notes: [], notCompared: null };

/**
 * Flags for every run, computed over the runs that ran their whole plan only (each against the complete run
 * before it, or the baseline); a run stopped early gets none.
 */
export function flagCompleteRuns<R extends { readonly summary: TrendSummary }>(
  runs: readonly R[],
  flag: (complete: readonly R[]) => RunFlag[],
): RunFlag[] {
  const complete = runs.filter((r) => stoppedEarly(r.summary) === null);
  const flags = flag(complete);
  return runs.map((r) => {
    const i = complete.indexOf(r);
    return i < 0 ? NOT_COMPARED : flags[i]!;
  });
}
