/**
 * The verdict: checks per phase, then one status for the run. A percentile is a statistic of a
 * sample, so it is judged by its confidence bounds (quantile-interval.ts: order statistics widened by
 * sectioning over time blocks, because queueing correlates latencies), each side at 97.5 % on its
 * own. A claim that a percentile is under a target (p(95) < 2.5s) passes only when the upper bound is
 * under it and fails only when the lower bound is not; a claim that it is over a target the reverse.
 * So each decision needs one side only, and a side missing (too few samples for it) blocks only the
 * decision it makes: 300 samples have no upper bound for p99, but a lower bound over the target fails
 * it. Otherwise the check is inconclusive, and says how many samples the missing side needs. A check
 * with no data is never a pass. Any fail fails the run; otherwise any inconclusive makes it inconclusive.
 * Nor is a run that measured nothing: a plan without a request, or a phase none of whose planned requests
 * was answered, adds an inconclusive check of its own (`measured`), whatever other checks apply.
 *
 * The generator's own lateness gates latency checks. Latency runs from the intended send time, so
 * a late generator (send lag, a blocked event loop) can only make latency look worse, never better.
 * So when it broke its budget (relative to the target judged, in model time), the results lateness
 * could have caused are suspect: a fail of an upper bound (p(95) < 2.5s), a pass of a lower bound
 * (p(95) > 1s). Such a result stands when it survives taking the generator's worst lateness (its
 * send-lag max and event-loop delay max) off every sample, or when service time (from the actual
 * send) gives it too — the latter only when send lag was the problem: a blocked event loop delays
 * reading every answer, so service time cannot tell. Otherwise the check is inconclusive and names
 * the budget it broke. Send lag is the phase's own (steady state), so a stall in one phase cannot
 * hide behind the rest.
 */
import { formatMs } from '../core/index.js';
import { type Check, type CheckStatus, rpm } from './check.js';
import { clientCapped, failsOnDropsAlone, generatorCapped, restsOnUnanswered } from './dropped-requests.js';
import { describeEnvelopePhase, envelopeStatus } from './envelope.js';
import { generatorOverBudget, mockBehindText } from './generator-budget.js';
import { lateTimeoutsCheck } from './late-timeouts.js';
import { measuredChecks } from './measured-check.js';
import { percentileCheck } from './percentile-check.js';
import { retryAfterNotes } from './retry-after-note.js';
import { staleErrorsCheck, staleLatencyCheck, staleNotes } from './stale-connections.js';
import { thresholdCheck } from './threshold-check.js';
import { toolHeldSlots } from './tool-held-slots.js';
import type { GeneratorHealth, PhaseInput, VerdictInput } from './verdict-input.js';

export interface Verdict {
  readonly status: CheckStatus;
  readonly checks: readonly Check[];
  /** The reasons of the checks that decided the status. */
  readonly reasons: readonly string[];
  /**
   * What the reader should know although it decided nothing: a generator late for a phase's targets, 429s without the
   * Retry-After the spec requires.
   */
  readonly notes: readonly string[];
}

/**
 * A fail resting on drops that the client's cap, the tool's own holding of slots, or its stalls on top of that holding
 * explain (the holding first: where it explains the drops alone, its reason is the one to read).
 */
function droppedByTool(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const held = toolHeldSlots(clientCapped(check, phase, onDrops), phase, onDrops, generator);
  return generatorCapped(held, phase, onDrops, generator);
}

function phaseChecks(phase: PhaseInput, documentedTargets: boolean, generator: GeneratorHealth): Check[] {
  const checks: Check[] = [];
  // Each band's arrivals against its own target: a ramp is judged in slices, by the rate at each arrival.
  for (const b of documentedTargets ? phase.bands : []) {
    if (b.band === undefined || b.steadyPlanned === 0) continue;
    const arrivals = phase.bands.length === 1 ? '' : `: its arrivals at ${rpm(b.fromRpm)}–${rpm(b.toRpm)} rpm`;
    const check: Check = {
      id: 'latency_p95_target',
      phase: phase.name,
      band: b.band.band,
      what: `p(95) < ${formatMs(b.band.p95TargetMs)} (spec, ${b.band.band} band${arrivals}, steady state)`,
      ...percentileCheck(b.steady, 95, '<', b.band.p95TargetMs, generator),
    };
    const onDrops = restsOnUnanswered(check, b.steady, b.band.p95TargetMs);
    const judged = droppedByTool(check, phase, onDrops, generator);
    checks.push(staleLatencyCheck(judged, b.steady, onDrops));
  }
  checks.push({
    id: 'http_429_in_envelope',
    phase: phase.name,
    what: 'no 429 inside the documented rate-limit envelope',
    status: envelopeStatus(phase.envelope),
    observed: phase.envelope.findings,
    interval: null,
    reason: describeEnvelopePhase(phase.envelope),
  });
  // Failures are judged on the whole phase: a request that failed in the warm-up failed all the same.
  if (phase.errorCheck !== null && phase.planned > 0) {
    const check = thresholdCheck(phase, phase.errorCheck, generator, 'error_rate', phase.all);
    const onDrops = failsOnDropsAlone(phase, phase.errorCheck);
    const judged = droppedByTool(check, phase, onDrops, generator);
    checks.push(
      lateTimeoutsCheck(staleErrorsCheck(judged, phase.all, phase.errorCheck), phase.all, phase.errorCheck, generator),
    );
  }
  for (const t of phase.thresholds) {
    const check = thresholdCheck(phase, t, generator);
    // A stage's check is about obfuscation calls or documents: the client's cap on identification requests is not its
    // business.
    if (t.stage !== undefined) {
      checks.push(check);
      continue;
    }
    const onDrops =
      t.kind === 'percentile'
        ? (t.op === '<' || t.op === '<=') && restsOnUnanswered(check, phase.steady, t.valueMs, t.percentile)
        : failsOnDropsAlone(phase, t);
    const judged = droppedByTool(check, phase, onDrops, generator);
    checks.push(
      t.kind === 'percentile'
        ? staleLatencyCheck(judged, phase.steady, onDrops, t.percentile)
        : lateTimeoutsCheck(staleErrorsCheck(judged, phase.steady, t), phase.steady, t, generator),
    );
  }
  return checks;
}

export function evaluateVerdict(input: VerdictInput): Verdict {
  const checks = [
    ...input.phases.flatMap((p) => phaseChecks(p, input.documentedTargets, input.generator)),
    ...measuredChecks(input.phases),
  ];
  const failed = checks.filter((c) => c.status === 'fail');
  const inconclusive = checks.filter((c) => c.status === 'inconclusive');
  const status: CheckStatus = failed.length > 0 ? 'fail' : inconclusive.length > 0 ? 'inconclusive' : 'pass';
  const deciding = status === 'fail' ? failed : status === 'inconclusive' ? inconclusive : [];
  return {
    status,
    checks,
    reasons: deciding.map((c) => `${c.phase === null ? 'run' : `phase ${c.phase}`}: ${c.what}: ${c.reason}`),
    notes: [...lateNotes(input), ...staleNotes(input.phases), ...retryAfterNotes(input.phases)],
  };
}

/**
 * One note per phase whose generator broke the budget of its tightest latency target, even where no result changed;
 * one for the run when the embedded mock's own lag broke one.
 */
function lateNotes(input: VerdictInput): string[] {
  const notes: string[] = [];
  const { mock, ...generator } = input.generator;
  let mockBehind = false;
  for (const phase of input.phases) {
    const targets = [
      ...(input.documentedTargets
        ? phase.bands.flatMap((b) => (b.band === undefined ? [] : [b.band.p95TargetMs]))
        : []),
      ...phase.thresholds.flatMap((t) => (t.kind === 'percentile' && t.stage === undefined ? [t.valueMs] : [])),
    ];
    if (targets.length === 0) continue;
    const lag = phase.steady.sendLag.count === 0 ? 0 : phase.steady.sendLag.percentileMs(99);
    mockBehind ||= mock !== undefined && generatorOverBudget(0, { mock }, Math.min(...targets)) !== undefined;
    const late = generatorOverBudget(lag, generator, Math.min(...targets));
    if (late !== undefined) {
      notes.push(
        `phase ${phase.name}: the generator was late (${late.text}): lateness only inflates latency, so results it could have caused were checked again on service time or made inconclusive`,
      );
    }
  }
  if (mockBehind) {
    const text = mockBehindText(mock!);
    notes.push(
      `${text[0]!.toUpperCase()}${text.slice(1)}: a result it could have caused was checked again without it, else made inconclusive, never counted as a finding.`,
    );
  }
  return notes;
}
