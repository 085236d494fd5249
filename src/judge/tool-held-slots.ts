/**
 * A fail resting on drops at the client's maxInFlight when the tool itself held the slots. A request holds its slot
 * from its send to its answer; its judged latency counts the wall overheads (the run's and the embedded mock's
 * processing, their event loops) once and a time-scaled mock's lag window not at all, but the slot holds them k times
 * over in model time: 50 ms of wall overhead at k = 1000 is 50 s of model time in the slot. By Little's law a service
 * meeting its target then needs peak rate × (target + that holding) slots: when that is over maxInFlight the drops may
 * be the tool's, at any k, though no single stall filled the slots (generatorCapped). The holding is measured, per
 * phase, as the answered requests' mean time in their slot beyond their latency: 0 at k = 1, where latency is the raw
 * time, so a real service's drops are never excused by it.
 */
import { formatMs } from '../core/index.js';
import { type Check, rpm } from './check.js';
import type { GeneratorHealth, PhaseInput } from './verdict-input.js';

/**
 * The phase's answered requests' mean holding beyond their latency (model ms); for a phase that answered none (its
 * slots held by the phases before it), the run's.
 */
function heldBeyondLatency(phase: PhaseInput, generator: GeneratorHealth): number {
  const { heldBeyondLatencyMs, heldBeyondLatencyCount } = phase.all;
  if (heldBeyondLatencyCount > 0) return heldBeyondLatencyMs / heldBeyondLatencyCount;
  return generator.slotHeldBeyondLatencyMs ?? 0;
}

type Cap = NonNullable<PhaseInput['inFlight']>;

/**
 * The slots a service meeting its target would need with the tool's holding (Little's law): the phase's peak rate ×
 * (target + its holding), or, when higher, the phase before's (its requests still hold slots as this one begins, as
 * long as the tool held them in that phase). Which of the two it is, its rate per model ms and its holding.
 */
function slotsNeeded(cap: Cap & { readonly targetMs: number }, heldMs: number) {
  // neededAtTarget is the peak rate × the target: the peak rate per model ms is its quotient.
  const own = { perMs: cap.neededAtTarget / cap.targetMs, heldMs, byBefore: false };
  const before =
    cap.before === undefined
      ? own
      : { perMs: cap.before.peakRpm / 60_000, heldMs: cap.before.heldBeyondLatencyMs, byBefore: true };
  const needed = (x: typeof own): number => x.perMs * (cap.targetMs + x.heldMs);
  const by = needed(before) > needed(own) ? before : own;
  return { ...by, needed: needed(by) };
}

export function toolHeldSlots(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const { dropped } = phase.all.outcomes;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0) return check;
  if (cap?.targetMs === undefined || !(cap.targetMs > 0)) return check;
  const by = slotsNeeded({ ...cap, targetMs: cap.targetMs }, heldBeyondLatency(phase, generator));
  if (by.heldMs === 0 || by.needed <= cap.maxInFlight) return check;
  const before = by.byBefore ? `phase ${cap.before!.name}` : '';
  const whose = by.byBefore ? `each answered request of ${before}` : 'each answered request';
  const rate = by.byBefore
    ? `${before}'s peak rate of ${rpm(by.perMs * 60_000)} rpm (its requests held slots as this phase began)`
    : `the phase's peak rate of ${rpm(by.perMs * 60_000)} rpm`;
  const wallShare = generator.latenessInLatency ?? 1;
  const windowWallMs = (generator.mock?.windowModelMs ?? 0) * wallShare;
  const window = windowWallMs > 0 ? ` and the embedded mock's ${formatMs(windowWallMs)} time-scale window` : '';
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the tool itself held the slot of ${whose} ${formatMs(by.heldMs)} of model time longer than its latency (${formatMs(by.heldMs * wallShare)} of wall time: the tool's own overheads${window}, which latency counts once or not at all but the slot holds k = ${Math.round(1 / wallShare)} times over): at ${rate} a service meeting its target of ${formatMs(cap.targetMs)} would need ${Math.ceil(by.needed)} slots, more than the ${cap.maxInFlight}: the drops may be the tool's, not the service's; run at a lower --time-scale`,
  };
}
