/**
 * A fail that rests on requests dropped at the client's maxInFlight, and when the client's cap or the
 * generator's stall, not the service, may have caused those drops.
 */
import { formatMs } from '../core/index.js';
import type { Slice } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, compare, rpm } from './check.js';
import { answeredCount } from './percentile-check.js';
import { countOf } from './threshold-check.js';
import type { GeneratorHealth, PhaseInput } from './verdict-input.js';

/**
 * A latency fail that rests on unanswered requests: the answered requests alone would not fail it (their own
 * percentile is under the target), so only the unanswered ones, at the top ranks, make the fail. Answers of 30 s
 * against 4 s fail with or without the drops, so that no drop, the client's or the generator's, excuses them. Where
 * the interval's lower bound lies matters not: with the drops late in a phase, its early time blocks hold answers
 * only, and the bound falls among them (burst.yaml's warm-up at k = 1000: 3.22 s against 2.5 s).
 */
export function restsOnUnanswered(check: Check, slice: Slice, targetMs: number, percentile = 95): boolean {
  if (check.status !== 'fail') return false;
  // The stand-ins hold the top ranks, so the answers' own percentile is a rank among the answers.
  const answered = answeredCount(slice.latencyExcl429);
  if (answered === slice.latencyExcl429.count) return false;
  return (
    answered === 0 || slice.latencyExcl429.rankMs(Math.max(1, Math.ceil((percentile / 100) * answered))) < targetMs
  );
}

/** A count or rate fail that the same threshold would pass with the dropped requests left out. */
export function failsOnDropsAlone(phase: PhaseInput, t: Threshold): boolean {
  if (t.kind === 'percentile' || t.kind === 'phi' || (t.of !== 'errors' && t.of !== 'dropped')) return false;
  const slice = t === phase.errorCheck ? phase.all : phase.steady;
  const dropped = slice.outcomes.dropped;
  const { count, base } = countOf(slice, t.of);
  const without = count - dropped;
  if (t.kind === 'count') return compare(without, t.op, t.count);
  // Every request dropped: nothing reached the service, so the fail rests on the drops alone.
  return base === dropped ? true : compare(without / (base - dropped), t.op, t.fraction);
}

/**
 * A fail that only requests dropped at the client's maxInFlight could have caused (`onDrops`), when that
 * cap is below what a service meeting its target would hold in flight at this rate, is the client's as
 * much as the service's: inconclusive, naming the cap. A fail the answered requests alone cause stands.
 */
export function clientCapped(check: Check, phase: PhaseInput, onDrops: boolean): Check {
  const dropped = phase.all.outcomes.dropped;
  const cap = phase.inFlight;
  if (
    check.status !== 'fail' ||
    !onDrops ||
    dropped === 0 ||
    cap === undefined ||
    cap.maxInFlight >= cap.neededAtTarget
  )
    return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight (${cap.maxInFlight}), below what a service meeting its target would hold in flight at this rate (peak rate × target ≈ ${Math.ceil(cap.neededAtTarget)}): the drops may be the client's, not the service's; raise maxInFlight`,
  };
}

/**
 * A fail that only requests dropped at the client's maxInFlight could have caused (`onDrops`), when the
 * generator stood still long enough to fill the slots by itself, is the generator's as much as the service's:
 * while it stands still, arrivals fall due unsent and answers wait unread, holding their slots, then the overdue
 * arrivals leave together. Its worst stall (model time: the phase's send-lag max or the event loop's max delay;
 * at time scale k a stall of 0.8 s of wall time is 48 s of model time at k = 60) × the phase's peak arrival rate
 * must reach maxInFlight: lateness of a fraction of a slot (200 ms at 200 rpm) cannot have caused the drops, and
 * the fail stands. Lateness does not add to drops as it adds to latency, so the latency budget is not the gate.
 */
export function generatorCapped(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const dropped = phase.all.outcomes.dropped;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0 || cap?.targetMs === undefined || !(cap.targetMs > 0))
    return check;
  const lagMax = phase.all.sendLag.count === 0 ? 0 : phase.all.sendLag.percentileMs(100);
  const stallMs = Math.max(lagMax, generator.eventLoopDelayMaxMs ?? generator.eventLoopDelayP99Ms ?? 0);
  // neededAtTarget is the peak rate × the target (Little's law): the peak rate per model ms is its quotient.
  const perMs = cap.neededAtTarget / cap.targetMs;
  const overdue = stallMs * perMs;
  if (overdue < cap.maxInFlight) return mockCapped(check, phase, perMs, generator);
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the generator was late (its worst stall, ${formatMs(stallMs)} of model time, at the phase's peak rate of ${rpm(perMs * 60_000)} rpm leaves ${Math.floor(overdue)} arrivals overdue, enough to fill the ${cap.maxInFlight} slots by itself): overdue arrivals leave together and unread answers hold their slots, so the drops may be the generator's, not the service's`,
  };
}

/**
 * The same for the embedded mock: while its own thread stands still it answers nothing, so the requests in flight
 * hold their slots for its whole stall (its max delay, × k in model time) and the arrivals meanwhile find them full.
 */
function mockCapped(check: Check, phase: PhaseInput, perMs: number, generator: GeneratorHealth): Check {
  const mock = generator.mock;
  const cap = phase.inFlight!;
  if (mock === undefined) return check;
  const stallMs = mock.maxWallMs / (generator.latenessInLatency ?? 1);
  const overdue = stallMs * perMs;
  if (overdue < cap.maxInFlight) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${phase.all.outcomes.dropped} requests were dropped at the client's maxInFlight while the embedded mock stood still (${formatMs(mock.maxWallMs)} of wall time, ${formatMs(stallMs)} of model time, at the phase's peak rate of ${rpm(perMs * 60_000)} rpm leaves ${Math.floor(overdue)} arrivals overdue, enough to fill the ${cap.maxInFlight} slots by itself): answers it held kept their slots, so the drops may be the tool's, not the service's`,
  };
}
