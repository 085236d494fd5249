/** The check that something was measured at all. */
import type { Check } from './check.js';
import type { PhaseInput } from './verdict-input.js';

/** Outcomes that are an answer of the service (an HTTP status came back), usable or not. */
const ANSWERED = ['ok', 'http_429', 'http_504', 'http_other', 'malformed', 'too_large'] as const;

/**
 * Nothing measured is nothing to pass on: a plan that held no request (a rate with a misplaced decimal point, a
 * Poisson draw of none), or a phase that planned requests none of which was answered (all unsent, say),
 * is inconclusive. Checks whose data is absent are already never a pass, but a phase may have none that
 * apply (no documented target, no error check). A phase that planned none beside others that did is not
 * judged (the arrival process runs across phases: tiny phases may hold no arrival).
 */
export function measuredChecks(phases: readonly PhaseInput[]): Check[] {
  const base = { id: 'measured', status: 'inconclusive' as const, observed: 0, interval: null };
  // The whole plan held none: every phase says so (its row in the table is not a pass either).
  if (phases.every((p) => p.planned === 0)) {
    const which = phases.length === 1 ? 'it planned none' : `none of its ${phases.length} phases planned one`;
    return phases.map((p) => ({
      ...base,
      phase: p.name,
      what: 'something measured',
      reason: `the plan held no request (${which}): nothing was measured, so nothing can pass`,
    }));
  }
  return phases
    .filter((p) => p.planned > 0 && ANSWERED.every((o) => p.all.outcomes[o] === 0))
    .map((p) => ({
      ...base,
      phase: p.name,
      what: 'an answer measured',
      reason: `none of its ${p.planned} planned requests was answered (${p.all.sent} sent, ${p.all.outcomes.dropped} dropped, ${p.all.outcomes.unsent} unsent)`,
    }));
}
