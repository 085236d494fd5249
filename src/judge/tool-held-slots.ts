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

export function toolHeldSlots(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const { dropped } = phase.all.outcomes;
  const cap = phase.inFlight;
  const heldMs = heldBeyondLatency(phase, generator);
  if (check.status !== 'fail' || !onDrops || dropped === 0 || heldMs === 0) return check;
  if (cap?.targetMs === undefined || !(cap.targetMs > 0)) return check;
  // neededAtTarget is the peak rate × the target (Little's law): the peak rate per model ms is its quotient. The phase
  // before's requests still hold slots as this one begins, for as long as the tool holds them.
  const ownPerMs = cap.neededAtTarget / cap.targetMs;
  const previousPerMs = (cap.previousPeakRpm ?? 0) / 60_000;
  const perMs = Math.max(ownPerMs, previousPerMs);
  const rate =
    perMs > ownPerMs
      ? `the peak rate of ${rpm(perMs * 60_000)} rpm (the phase before, whose requests held slots as it began)`
      : `the phase's peak rate of ${rpm(perMs * 60_000)} rpm`;
  const needed = perMs * (cap.targetMs + heldMs);
  if (needed <= cap.maxInFlight) return check;
  const wallShare = generator.latenessInLatency ?? 1;
  const windowWallMs = (generator.mock?.windowModelMs ?? 0) * wallShare;
  const window = windowWallMs > 0 ? ` and the embedded mock's ${formatMs(windowWallMs)} time-scale window` : '';
  const k = Math.round(1 / wallShare);
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the tool itself held each answered request's slot ${formatMs(heldMs)} of model time longer than its latency (${formatMs(heldMs * wallShare)} of wall time: the tool's own overheads${window}, which latency counts once or not at all but the slot holds k = ${k} times over): at ${rate} a service meeting its target of ${formatMs(cap.targetMs)} would need ${Math.ceil(needed)} slots, more than the ${cap.maxInFlight}: the drops may be the tool's, not the service's; run at a lower --time-scale`,
  };
}
