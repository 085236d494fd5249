/**
 * A plan that holds no request cannot be judged: a run of it would measure nothing. A mistyped rate
 * (`rpm: 0.0000000001`; exponents such as 1e-300 are refused by the scenario's number grammar first) or a Poisson draw
 * of none over a short phase gives one; it is refused before anything is sent (exit 2), naming each phase that planned
 * none (here: every one).
 */
import { escapeInvisible } from '../core/index.js';
import { formatDecimal, formatDuration } from '../scenario/index.js';
import type { Plan } from './build-plan.js';

/** At most this many phases are named in the message; the rest are counted. */
const NAMED_AT_MOST = 10;

/** The problem (the `phases` field, for a ScenarioError) when the plan holds no request; undefined otherwise. */
export function emptyPlanProblem(plan: Plan): string | undefined {
  if (plan.arrivals > 0) return undefined;
  const s = plan.scenario;
  const poisson = s.arrivals.process === 'poisson' ? `, Poisson arrivals of seed ${s.arrivals.seed}` : '';
  const named = plan.phases.slice(0, NAMED_AT_MOST).map((p) => {
    const [from, to] = p.documents === undefined ? [p.fromRpm, p.toRpm] : [p.documents.fromRpm, p.documents.toRpm];
    const rate = from === to ? `${formatDecimal(from)} rpm` : `${formatDecimal(from)} to ${formatDecimal(to)} rpm`;
    return `phase "${escapeInvisible(p.name)}" (${formatDuration(p.durationMs)} at ${rate}${poisson})`;
  });
  const more = plan.phases.length > NAMED_AT_MOST ? ` and ${plan.phases.length - NAMED_AT_MOST} more` : '';
  const why =
    poisson === ''
      ? 'rate × duration is under one request'
      : 'rate × duration is under one request, or the seed drew none';
  return `phases: the plan holds no request, so a run of it would measure nothing: ${named.join(', ')}${more} planned none (${why}); expected at least one request: check the rates (a misplaced decimal point?), lengthen a phase${poisson === '' ? '' : ', or choose another seed'}`;
}
