/**
 * A fail resting on drops at the client's maxInFlight when the tool itself held the slots. A request holds its slot
 * from its send to its answer; its judged latency counts the wall overheads (the run's and the embedded mock's
 * processing, their event loops) once and a time-scaled mock's lag window not at all, but the slot holds them k times
 * over in model time: 50 ms of wall overhead at k = 1000 is 50 s of model time in the slot. A service meeting its
 * target then offers the slots a load of peak rate × (target + that holding) (Little's law); arrivals are random, so
 * slots are lost before that mean reaches maxInFlight: Erlang's loss formula says what share. When that share could
 * give the drops seen, they may be the tool's, at any k, though no single stall filled the slots (generatorCapped) —
 * unless the service's own answers (their mean latency, without the holding) could give them alone: then they are
 * the service's, as they would be at k = 1. The holding is measured, per phase, as the answered requests' mean time
 * in their slot (from their send) beyond their latency: 0 at k = 1, where latency is the raw time, so a real
 * service's drops are never excused by it.
 */
import { formatMs } from '../core/index.js';

const pct = (share: number): string => `${(share * 100).toFixed(share < 0.01 ? 2 : 1)} %`;

/** What the slots a service meeting its target would need say, against maxInFlight. */
function slotsText(needed: number, maxInFlight: number): string {
  return needed > maxInFlight
    ? `would need ${Math.ceil(needed)} slots, more than the ${maxInFlight}`
    : `would keep ${Math.round(needed)} of the ${maxInFlight} slots busy on average and, its requests arriving at random, find all of them taken for ${pct(erlangLoss(maxInFlight, needed))} of its requests`;
}
import { type Check, rpm } from './check.js';
import type { GeneratorHealth, PhaseInput } from './verdict-input.js';

/**
 * The phase's answered requests' mean holding beyond their latency (model ms); for a phase that answered none (its
 * slots held by the phases before it), the run's.
 */
export function heldBeyondLatency(phase: PhaseInput, generator: GeneratorHealth): number {
  const { heldBeyondLatencyMs, heldBeyondLatencyCount } = phase.all;
  if (heldBeyondLatencyCount > 0) return heldBeyondLatencyMs / heldBeyondLatencyCount;
  return generator.slotHeldBeyondLatencyMs ?? 0;
}

type Cap = NonNullable<PhaseInput['inFlight']>;

/** Erlang B: the share of Poisson arrivals lost by `slots` slots under an offered load of `load` (rate × mean hold). */
function erlangLoss(slots: number, load: number): number {
  let loss = 1;
  for (let n = 1; n <= slots; n++) loss = (load * loss) / (n + load * loss);
  return loss;
}

/** Whether `dropped` of `arrivals` is within what a loss of `share` gives by chance (mean + 3 standard deviations). */
function couldGive(share: number, arrivals: number, dropped: number): boolean {
  const expected = share * arrivals;
  return dropped <= expected + 3 * Math.sqrt(expected * (1 - share));
}

/** Whether a load of `load` on `slots` slots could drop `dropped` of `arrivals`: over the slots, or by its loss. */
function couldDrop(load: number, slots: number, arrivals: number, dropped: number): boolean {
  return load > slots || couldGive(erlangLoss(slots, load), arrivals, dropped);
}

/**
 * The slots a service meeting its target would need with the tool's holding (Little's law): the phase's peak rate ×
 * (target + its holding), or, when higher, the phase before's (its requests still hold slots as this one begins, as
 * long as the tool held them in that phase). Which of the two it is, its rate per model ms and its holding.
 */
function slotsNeeded(cap: Cap & { readonly targetMs: number }, heldMs: number) {
  // neededAtTarget is the peak rate × the target: the peak rate per model ms is its quotient.
  const own = { perMs: cap.neededAtTarget / cap.targetMs, heldMs, byBefore: false };
  // A phase before with no holding of the tool adds nothing the tool did: the phase's own holding decides.
  const before =
    cap.before === undefined || cap.before.heldBeyondLatencyMs === 0
      ? own
      : { perMs: cap.before.peakRpm / 60_000, heldMs: cap.before.heldBeyondLatencyMs, byBefore: true };
  const needed = (x: typeof own): number => x.perMs * (cap.targetMs + x.heldMs);
  const by = needed(before) > needed(own) ? before : own;
  return { ...by, needed: needed(by) };
}

/**
 * Whether the service's own answers (their mean service time, without the tool's holding or lateness) at `perMs`
 * arrivals per model ms could give the phase's drops alone: its drops then, as at k = 1, whatever the tool did.
 */
export function serviceFillsSlots(phase: PhaseInput, cap: Cap, perMs: number): boolean {
  const { answeredServiceMs, heldBeyondLatencyCount: answered, sent, outcomes } = phase.all;
  if (answered === 0) return false;
  return couldDrop(perMs * (answeredServiceMs / answered), cap.maxInFlight, sent + outcomes.dropped, outcomes.dropped);
}

/** A fail resting on drops that the tool's own holding of slots could give (see the top of this file). */
export function toolHeldSlots(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const { dropped } = phase.all.outcomes;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0) return check;
  if (cap?.targetMs === undefined || !(cap.targetMs > 0)) return check;
  const by = slotsNeeded({ ...cap, targetMs: cap.targetMs }, heldBeyondLatency(phase, generator));
  if (by.heldMs === 0) return check;
  const arrivals = phase.all.sent + dropped;
  const answered = phase.all.heldBeyondLatencyCount;
  if (serviceFillsSlots(phase, cap, cap.neededAtTarget / cap.targetMs)) return check;
  if (!couldDrop(by.needed, cap.maxInFlight, arrivals, dropped)) return check;
  const before = by.byBefore ? `phase ${cap.before!.name}` : '';
  const whose = by.byBefore
    ? `each answered request of ${before}`
    : answered > 0
      ? 'each answered request'
      : 'each answered request of the run';
  const rate = by.byBefore
    ? `${before}'s peak rate of ${rpm(by.perMs * 60_000)} rpm (its requests held slots as this phase began)`
    : `the phase's peak rate of ${rpm(by.perMs * 60_000)} rpm`;
  const wallShare = generator.latenessInLatency ?? 1;
  const windowWallMs = (generator.mock?.windowModelMs ?? 0) * wallShare;
  const window = windowWallMs > 0 ? ` and the embedded mock's ${formatMs(windowWallMs)} time-scale window` : '';
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the tool itself held the slot of ${whose} ${formatMs(by.heldMs)} of model time longer than its latency (${formatMs(by.heldMs * wallShare)} of wall time: the tool's own overheads${window}, which latency counts once or not at all but the slot holds k = ${Math.round(1 / wallShare)} times over): at ${rate} a service meeting its target of ${formatMs(cap.targetMs)} ${slotsText(by.needed, cap.maxInFlight)}: the drops may be the tool's, not the service's; run at a lower --time-scale`,
  };
}
