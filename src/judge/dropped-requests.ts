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
import { heldBeyondLatency, serviceFillsSlots } from './tool-held-slots.js';
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
 * A fail that only requests dropped at the client's maxInFlight could have caused (`onDrops`), when the tool stood
 * still long enough to fill the slots: while the generator stands still, arrivals fall due unsent and answers wait
 * unread, holding their slots, then the overdue arrivals leave together; while the embedded mock's thread stands
 * still, it answers nothing and every request in flight keeps its slot. Their stalls stack, on top of the slots the
 * service's answers hold anyway (Little's law: peak rate × (their mean service time, at most the target, + the tool's
 * holding beyond latency); the target for a phase that answered none). A mean over the target is the service's own
 * slowness, not a compliant service's need: it adds nothing the tool could be blamed for.
 * Each stall is its worst, in model time: the phase's send-lag max or the event loop's max delay (a stall of 0.8 s
 * of wall time is 48 s of model time at k = 60), and the mock's max delay × k. When together they reach
 * maxInFlight, a service meeting its target could have met the same drops: inconclusive. When they stay under, or
 * when the service's own answers fill the slots by themselves (its drops at any k), the fail stands. Lateness does
 * not add to drops as it adds to latency, so the latency budget is not the gate.
 */
export function generatorCapped(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const dropped = phase.all.outcomes.dropped;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0 || cap?.targetMs === undefined || !(cap.targetMs > 0))
    return check;
  const lagMax = phase.all.sendLag.count === 0 ? 0 : phase.all.sendLag.percentileMs(100);
  const generatorMs = Math.max(lagMax, generator.eventLoopDelayMaxMs ?? generator.eventLoopDelayP99Ms ?? 0);
  // The mock's stall beyond its time-scale window: the window itself is part of the tool's holding.
  const mockMs = generator.mock?.modelMs ?? 0;
  // neededAtTarget is the peak rate × the target (Little's law): the peak rate per model ms is its quotient.
  const perMs = cap.neededAtTarget / cap.targetMs;
  const heldMs = heldBeyondLatency(phase, generator);
  const answered = phase.all.heldBeyondLatencyCount;
  const serviceMs = answered > 0 ? Math.min(cap.targetMs, phase.all.answeredServiceMs / answered) : cap.targetMs;
  const held = perMs * (serviceMs + heldMs);
  const overdue = (generatorMs + mockMs) * perMs;
  // Holding that fills the slots by itself was judged by toolHeldSlots (here only when the service's own answers fill
  // them), a cap under the target's need by clientCapped.
  if (held >= cap.maxInFlight || overdue + held < cap.maxInFlight || serviceFillsSlots(phase, cap, perMs)) return check;
  const stalls = [
    ...(generatorMs > 0 ? [`the generator's worst, ${formatMs(generatorMs)} of model time`] : []),
    ...(mockMs > 0
      ? [
          `the embedded mock's, ${formatMs(mockMs * (generator.latenessInLatency ?? 1))} of wall time beyond its window (${formatMs(mockMs)} of model time)`,
        ]
      : []),
  ].join('; ');
  const holding = heldMs > 0 ? `, plus the tool's holding of ${formatMs(heldMs)} each` : '';
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the tool was late: its stalls (${stalls}) leave ${Math.floor(overdue)} arrivals overdue at the phase's peak rate of ${rpm(perMs * 60_000)} rpm, on top of the ${Math.floor(held)} slots its answers hold (their mean service time ${formatMs(serviceMs)}, at most the target of ${formatMs(cap.targetMs)}${holding}): together more than the ${cap.maxInFlight} slots, so the drops may be the tool's, not the service's`,
  };
}
