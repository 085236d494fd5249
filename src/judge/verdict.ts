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
import { formatMs, isUnanswered } from '../core/index.js';
import type { MsHistogram, Slice } from '../recorder/index.js';
import type { Countable, Threshold } from '../scenario/index.js';
import type { LatencyBand } from '../spec/index.js';
import { type TimeOrderedSample, minimumSamples, quantileInterval } from './quantile-interval.js';
import { type EnvelopePhase, describeEnvelopePhase } from './envelope.js';

export type CheckStatus = 'pass' | 'fail' | 'inconclusive';

export interface Check {
  /** Stable id: latency_p95_target, threshold, http_429_in_envelope. */
  readonly id: string;
  /** The phase the check is about, or null for the whole run. */
  readonly phase: string | null;
  /** A documented target's check: the load band whose arrivals it judges (a ramp has one per band). */
  readonly band?: string;
  /** What was checked, e.g. "p(95) < 2.5s (spec, sustained band, steady state)". */
  readonly what: string;
  readonly status: CheckStatus;
  /** The measured value (ms for percentiles, a fraction for rates, a count), or null without data. */
  readonly observed: number | null;
  /**
   * Confidence bounds of a percentile (ms), [lower, upper], each at 97.5 % (95 % together); a side is
   * null when the sample is too small for it. Null for a check that is not a percentile, or without data.
   */
  readonly interval: readonly [number | null, number | null] | null;
  /** One line saying why. */
  readonly reason: string;
}

export interface Verdict {
  readonly status: CheckStatus;
  readonly checks: readonly Check[];
  /** The reasons of the checks that decided the status. */
  readonly reasons: readonly string[];
  /** What the reader should know although it decided nothing: a generator late for a phase's targets. */
  readonly notes: readonly string[];
}

/** The steady requests of a phase that fall in one load band, by the rate at their intended time. */
export interface BandInput {
  /** The spec's band, or undefined above 300 rpm (no documented target). */
  readonly band: LatencyBand | undefined;
  /** Offered rate at the band's start and end in the phase (rpm). */
  readonly fromRpm: number;
  readonly toRpm: number;
  /** Requests the plan put in the band after the warm-up: a band that planned none (inside the warm-up) is not judged. */
  readonly steadyPlanned: number;
  readonly steady: Slice;
}

export interface PhaseInput {
  readonly name: string;
  /** The phase's load bands in time order: one for a constant rate, up to four for a ramp. */
  readonly bands: readonly BandInput[];
  /** Requests the plan put in the phase: a phase that planned none has no error rate to judge. */
  readonly planned: number;
  /**
   * The client's cap on requests in flight, and what a service meeting the phase's latency target would
   * hold in flight at its peak rate (Little's law: peak rate × target). Below that, drops at the cap can be
   * the client's doing, not the service's.
   */
  readonly inFlight?: { readonly maxInFlight: number; readonly neededAtTarget: number; /** The phase's latency target (model ms), for the generator's budget. */ readonly targetMs?: number };
  /** Requests of the phase after its warm-up. */
  readonly steady: Slice;
  /** Every request of the phase. */
  readonly all: Slice;
  /** The phase's 429s judged against the rate-limit envelope (envelopeFindings). */
  readonly envelope: EnvelopePhase;
  readonly thresholds: readonly Threshold[];
  /** The error check (`thresholds.errors`: rate(errors) < 1 % by default), on the whole phase; null for none. */
  readonly errorCheck: Threshold | null;
  /** mode deid: the obfuscation calls and the documents of the phase's steady state, for thresholds that name them. */
  readonly stages?: { readonly obfuscation: StageInput; readonly document: StageInput };
}

/** A stage of the deid chain, as its thresholds judge it. */
export interface StageInput {
  /** Latency of its items other than 429s (an obfuscation call; a document end to end), in time blocks. */
  readonly latency: TimeOrderedSample;
  /** Its items (calls; documents that were sent), and how many were 429, 504, 5xx, or failed. */
  readonly counts: { readonly total: number; readonly http_429: number; readonly http_504: number; readonly http_5xx: number; readonly errors: number };
}

/** How late the whole generator was, in model ms (wall ms × k); send lag is judged per phase, from its slice. */
export interface GeneratorHealth {
  /** Event-loop delay p99 in model ms (wall × k), when monitored: it delays reading answers as much as sending. */
  readonly eventLoopDelayP99Ms?: number;
  /** Event-loop delay max in model ms (wall × k), when monitored: the most it delayed any one answer. */
  readonly eventLoopDelayMaxMs?: number;
  /**
   * How much of the generator's lateness (model ms: send lag, event-loop delay) shows in the latency judged:
   * 1 (the default), or 1 ÷ k at time scale k, where latency counts the wall overheads once
   * (src/judge/accounting.ts): a send 4 ms late on the wall adds 4 ms, not 4 × k.
   */
  readonly latenessInLatency?: number;
}

export interface VerdictInput {
  readonly phases: readonly PhaseInput[];
  readonly documentedTargets: boolean;
  readonly generator: GeneratorHealth;
}

/**
 * The generator's accuracy budget, as a fraction of the latency target judged: past it, a failing
 * latency check cannot tell the service's lateness from the generator's. 1 % of a 2.5 s target is 25 ms
 * of lateness as latency counts it (at time scale k, once: GeneratorHealth.latenessInLatency).
 */
export const GENERATOR_BUDGET = { fractionOfTarget: 0.01 } as const;

/** How the generator broke its budget for a target: which figures, and whether the event loop was one. */
interface GeneratorLateness {
  readonly text: string;
  readonly eventLoopBlocked: boolean;
}

/** How late the generator was for `targetMs` (its phase's send lag, the run's event loop), or undefined within budget. */
export function generatorOverBudget(sendLagP99Ms: number, g: GeneratorHealth, targetMs: number): GeneratorLateness | undefined {
  const budgetMs = GENERATOR_BUDGET.fractionOfTarget * targetMs;
  const share = g.latenessInLatency ?? 1;
  const lagMs = sendLagP99Ms * share;
  const loopMs = g.eventLoopDelayP99Ms === undefined ? undefined : g.eventLoopDelayP99Ms * share;
  const problems: string[] = [];
  if (lagMs > budgetMs) problems.push(`send lag p99 ${formatMs(lagMs)}`);
  const eventLoopBlocked = loopMs !== undefined && loopMs > budgetMs;
  if (eventLoopBlocked) problems.push(`event-loop delay p99 ${formatMs(loopMs!)}`);
  if (problems.length === 0) return undefined;
  const counted = share === 1 ? '' : ' (as latency counts it: once, not k times)';
  return { text: `${problems.join(' and ')}${counted} over the generator's budget of ${formatMs(budgetMs)}, ${GENERATOR_BUDGET.fractionOfTarget * 100} % of the target, model time`, eventLoopBlocked };
}

function compare(value: number, op: Threshold['op'], target: number): boolean {
  switch (op) {
    case '<':
      return value < target;
    case '<=':
      return value <= target;
    case '==':
      return value === target;
    case '>=':
      return value >= target;
    case '>':
      return value > target;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown operator ${String(unreachable)}`);
    }
  }
}

type PercentileResult = Pick<Check, 'status' | 'observed' | 'interval' | 'reason'>;
type Inequality = Exclude<Threshold['op'], '=='>;

/**
 * A claim judged on each bound alone: `p < target` passes on the upper bound and fails on the lower
 * one; `p > target` passes on the lower bound and fails on the upper one. A missing side (null) makes
 * only its own decision.
 */
function decide(lower: number | null, upper: number | null, op: Inequality, targetMs: number): CheckStatus {
  const claimsUnder = op === '<' || op === '<=';
  const passBound = claimsUnder ? upper : lower;
  const failBound = claimsUnder ? lower : upper;
  if (passBound !== null && compare(passBound, op, targetMs)) return 'pass';
  if (failBound !== null && !compare(failBound, op, targetMs)) return 'fail';
  return 'inconclusive';
}

/** "1.80s–2.10s", "at least 1.80s" or "at most 2.10s". */
function boundsText(lower: number | null, upper: number | null): string {
  if (lower !== null && upper !== null) return `${formatMs(lower)}–${formatMs(upper)}`;
  return lower !== null ? `at least ${formatMs(lower)}` : `at most ${formatMs(upper!)}`;
}

/** A percentile of one time-ordered sample against `op target`, judged on its confidence bounds. */
function judgePercentile(sample: TimeOrderedSample, percentile: number, op: Threshold['op'], targetMs: number): PercentileResult {
  const q = percentile / 100;
  // Sectioning on latencies capped above the target: the same decision against it (see quantileInterval), without the
  // stand-in value of unanswered requests. Capped at the slowest answer, or twice the target if that is higher, a sample
  // with no unanswered request is not capped at all.
  const capMs = op === '==' ? Number.POSITIVE_INFINITY : Math.max(2 * targetMs, slowestAnsweredMs(sample.all));
  const found = quantileInterval(sample, q, capMs);
  if (found === undefined) return { status: 'inconclusive', observed: null, interval: null, reason: 'no response was measured' };
  const { count, estimateMs: observed, lowerMs: lower, upperMs: upper } = found;
  const interval: [number | null, number | null] = [lower, upper];
  if (lower === null && upper === null) {
    const needed = Math.min(minimumSamples(q, 'lower'), minimumSamples(q, 'upper'));
    return { status: 'inconclusive', observed, interval, reason: `${count} responses are too few to bound p(${percentile}) (at least ${needed} needed)` };
  }
  const p = `p(${percentile}) ${formatMs(observed)}`;
  const range =
    lower !== null && upper !== null
      ? `${p}, 95 % interval ${formatMs(lower)}–${formatMs(upper)}`
      : lower !== null
        ? `${p}, 97.5 % lower bound ${formatMs(lower)}, no upper bound`
        : `${p}, 97.5 % upper bound ${formatMs(upper!)}, no lower bound`;
  if (op === '==') {
    return { status: compare(observed, op, targetMs) ? 'pass' : 'fail', observed, interval, reason: `${range} (compared as measured)` };
  }
  const status = decide(lower, upper, op, targetMs);
  if (status === 'pass') return { status, observed, interval, reason: `${range}: ${op} ${formatMs(targetMs)}` };
  if (status === 'fail') return { status, observed, interval, reason: `${range}: not ${op} ${formatMs(targetMs)}` };
  if (lower !== null && upper !== null) return { status, observed, interval, reason: `${range} straddles ${formatMs(targetMs)}` };
  // The side present could not decide, so the missing one is the one that would.
  const missing = upper === null ? 'upper' : 'lower';
  return {
    status,
    observed,
    interval,
    reason: `${range}: ${count} responses are too few to bound p(${percentile}) from ${missing === 'upper' ? 'above' : 'below'} (at least ${minimumSamples(q, missing)} needed)`,
  };
}

/** How many values of `h` are answers (below the stand-in of unanswered requests, which holds the top ranks). */
function answeredCount(h: MsHistogram): number {
  let lo = 0;
  let hi = h.count;
  // The highest rank whose value is an answer: ranks hold values in order, so search for it.
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (isUnanswered(h.rankMs(mid))) hi = mid - 1;
    else lo = mid;
  }
  return lo;
}

/** The slowest value below the stand-in of unanswered requests (ms), or 0 when there is none. */
export function slowestAnsweredMs(h: MsHistogram): number {
  const answered = answeredCount(h);
  return answered === 0 ? 0 : h.rankMs(answered);
}

/**
 * The generator's worst lateness as the latency of `slice` counts it (model ms): its send-lag max plus the
 * event loop's max delay. No sample was inflated by more; compare takes it off a late run's p95 too.
 */
export function worstLatenessMs(slice: Slice, g: GeneratorHealth): number {
  const lagMax = slice.sendLag.count === 0 ? 0 : slice.sendLag.percentileMs(100);
  return (lagMax + (g.eventLoopDelayMaxMs ?? g.eventLoopDelayP99Ms ?? 0)) * (g.latenessInLatency ?? 1);
}

/** The result a late generator could have caused for `op`: a fail of an upper bound, a pass of a lower one, either for ==. */
function suspect(status: CheckStatus, op: Threshold['op']): boolean {
  if (status === 'inconclusive') return false;
  if (op === '==') return true;
  return (op === '<' || op === '<=') === (status === 'fail');
}

/**
 * A percentile of the slice's latency (answers other than 429) against `op target`, judged on its
 * confidence interval, and gated by the generator's lateness (see the top of this file).
 */
export function percentileCheck(slice: Slice, percentile: number, op: Threshold['op'], targetMs: number, generator: GeneratorHealth): PercentileResult {
  const latency = judgePercentile({ all: slice.latencyExcl429, blocks: slice.latencyExcl429Blocks }, percentile, op, targetMs);
  if (!suspect(latency.status, op)) return latency;
  const lag = slice.sendLag.count === 0 ? 0 : slice.sendLag.percentileMs(99);
  const late = generatorOverBudget(lag, generator, targetMs);
  if (late === undefined) return latency;
  // No sample was inflated by more than this: if the result survives taking it off, lateness did not cause it.
  const worstMs = worstLatenessMs(slice, generator);
  if (op !== '==' && latency.interval !== null) {
    const [lower, upper] = latency.interval.map((ms) => (ms === null ? null : ms - worstMs)) as [number | null, number | null];
    if (decide(lower, upper, op, targetMs) === latency.status) {
      return { ...latency, reason: `${latency.reason}; the generator was late (${late.text}), but not enough to cause it: with its worst lateness (${formatMs(worstMs)}) taken off, the interval is ${boundsText(lower, upper)}` };
    }
  }
  if (late.eventLoopBlocked) {
    return { ...latency, status: 'inconclusive', reason: `${latency.reason}, but the generator was late (${late.text}); service time, read on the same blocked event loop, cannot tell the service's lateness from the generator's` };
  }
  const service = judgePercentile({ all: slice.serviceExcl429, blocks: slice.serviceExcl429Blocks }, percentile, op, targetMs);
  if (service.status === latency.status) return { ...latency, reason: `${latency.reason}; the generator was late (${late.text}), but service time alone gives the same: ${service.reason}` };
  return {
    ...latency,
    status: 'inconclusive',
    reason: `${latency.reason}, but the generator was late (${late.text}) and on service time alone ${service.reason}: the result may be the generator's, not the service's`,
  };
}

function countOf(slice: Slice, of: Countable): { count: number; base: number } {
  const o = slice.outcomes;
  const sent = slice.sent;
  switch (of) {
    case '429':
      return { count: o.http_429, base: sent };
    case '504':
      return { count: o.http_504, base: sent };
    case '5xx':
      return { count: Object.entries(slice.status).reduce((sum, [code, n]) => (Number(code) >= 500 ? sum + n : sum), 0), base: sent };
    case 'errors':
      return { count: slice.failed, base: sent + o.dropped };
    case 'dropped':
      return { count: o.dropped, base: sent + o.dropped };
    default: {
      const unreachable: never = of;
      throw new Error(`unknown countable ${String(unreachable)}`);
    }
  }
}

/** A threshold on the phase's steady state (or, for a count or rate, on `slice`). */
function thresholdCheck(phase: PhaseInput, t: Threshold, generator: GeneratorHealth, id = 'threshold', slice = phase.steady): Check {
  const base = { id, phase: phase.name, what: t.source };
  if (t.stage !== undefined) return stageCheck(base, phase.stages?.[t.stage], t);
  if (t.kind === 'percentile') return { ...base, ...percentileCheck(phase.steady, t.percentile, t.op, t.valueMs, generator) };
  const { count, base: of } = countOf(slice, t.of);
  if (t.kind === 'count') {
    return { ...base, status: compare(count, t.op, t.count) ? 'pass' : 'fail', observed: count, interval: null, reason: `count ${count}` };
  }
  if (of === 0) return { ...base, status: 'inconclusive', observed: null, interval: null, reason: 'no request to take a rate of' };
  const rate = count / of;
  return { ...base, status: compare(rate, t.op, t.fraction) ? 'pass' : 'fail', observed: rate, interval: null, reason: `${count} of ${of} (${(rate * 100).toFixed(2)} %)` };
}

/** A threshold on a stage of the deid chain: its latency judged on its interval, its counts as counted. */
function stageCheck(base: { id: string; phase: string; what: string }, stage: StageInput | undefined, t: Threshold): Check {
  if (stage === undefined) return { ...base, status: 'inconclusive', observed: null, interval: null, reason: `no ${t.stage} was recorded` };
  if (t.kind === 'percentile') return { ...base, ...judgePercentile(stage.latency, t.percentile, t.op, t.valueMs) };
  const c = stage.counts;
  const count = t.of === '429' ? c.http_429 : t.of === '504' ? c.http_504 : t.of === '5xx' ? c.http_5xx : t.of === 'errors' ? c.errors : 0;
  const what = t.stage === 'document' ? 'documents' : 'calls';
  if (t.kind === 'count') return { ...base, status: compare(count, t.op, t.count) ? 'pass' : 'fail', observed: count, interval: null, reason: `count ${count}` };
  if (c.total === 0) return { ...base, status: 'inconclusive', observed: null, interval: null, reason: `no ${what} to take a rate of` };
  const rate = count / c.total;
  return { ...base, status: compare(rate, t.op, t.fraction) ? 'pass' : 'fail', observed: rate, interval: null, reason: `${count} of ${c.total} ${what} (${(rate * 100).toFixed(2)} %)` };
}

const rpm = (value: number): string => String(Math.round(value * 10) / 10);

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
    checks.push(generatorCapped(clientCapped(check, phase, onDrops), phase, onDrops, generator));
  }
  checks.push({
    id: 'http_429_in_envelope',
    phase: phase.name,
    what: 'no 429 inside the documented rate-limit envelope',
    // A shard's 429s are the merge's to judge: it says so rather than pass them.
    status: phase.envelope.shared === true && phase.envelope.http429 > 0 ? 'inconclusive' : phase.envelope.findings === 0 ? 'pass' : 'fail',
    observed: phase.envelope.findings,
    interval: null,
    reason: describeEnvelopePhase(phase.envelope),
  });
  // Failures are judged on the whole phase: a request that failed in the warm-up failed all the same.
  if (phase.errorCheck !== null && phase.planned > 0) {
    const check = thresholdCheck(phase, phase.errorCheck, generator, 'error_rate', phase.all);
    const onDrops = failsOnDropsAlone(phase, phase.errorCheck);
    checks.push(generatorCapped(clientCapped(check, phase, onDrops), phase, onDrops, generator));
  }
  for (const t of phase.thresholds) {
    const check = thresholdCheck(phase, t, generator);
    // A stage's check is about obfuscation calls or documents: the client's cap on identification requests is not its business.
    if (t.stage !== undefined) {
      checks.push(check);
      continue;
    }
    const onDrops = t.kind === 'percentile' ? (t.op === '<' || t.op === '<=') && restsOnUnanswered(check, phase.steady, t.valueMs, t.percentile) : failsOnDropsAlone(phase, t);
    checks.push(generatorCapped(clientCapped(check, phase, onDrops), phase, onDrops, generator));
  }
  return checks;
}

/**
 * A latency fail whose lower bound lies beyond every answer (and twice the target): it rests on unanswered
 * requests — unless the answered requests alone put the percentile over the target (answers of 30 s against
 * 4 s fail with or without the drops), so that no drop, the client's or the generator's, excuses it.
 */
function restsOnUnanswered(check: Check, slice: Slice, targetMs: number, percentile = 95): boolean {
  const lower = check.interval?.[0] ?? null;
  if (check.status !== 'fail' || lower === null || lower < Math.max(2 * targetMs, slowestAnsweredMs(slice.latencyExcl429))) return false;
  // The stand-ins hold the top ranks, so the answers' own percentile is a rank among the answers.
  const answered = answeredCount(slice.latencyExcl429);
  return answered === 0 || slice.latencyExcl429.rankMs(Math.max(1, Math.ceil((percentile / 100) * answered))) < targetMs;
}

/** A count or rate fail that the same threshold would pass with the dropped requests left out. */
function failsOnDropsAlone(phase: PhaseInput, t: Threshold): boolean {
  if (t.kind === 'percentile' || (t.of !== 'errors' && t.of !== 'dropped')) return false;
  const slice = t === phase.errorCheck ? phase.all : phase.steady;
  const dropped = slice.outcomes.dropped;
  const { count, base } = countOf(slice, t.of);
  const without = count - dropped;
  if (t.kind === 'count') return compare(without, t.op, t.count);
  return base === dropped ? false : compare(without / (base - dropped), t.op, t.fraction);
}

/**
 * A fail that only requests dropped at the client's maxInFlight could have caused (`onDrops`), when that
 * cap is below what a service meeting its target would hold in flight at this rate, is the client's as
 * much as the service's: inconclusive, naming the cap. A fail the answered requests alone cause stands.
 */
function clientCapped(check: Check, phase: PhaseInput, onDrops: boolean): Check {
  const dropped = phase.all.outcomes.dropped;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0 || cap === undefined || cap.maxInFlight >= cap.neededAtTarget) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight (${cap.maxInFlight}), below what a service meeting its target would hold in flight at this rate (peak rate × target ≈ ${Math.ceil(cap.neededAtTarget)}): the drops may be the client's, not the service's; raise maxInFlight`,
  };
}

/** Outcomes that are an answer of the service (an HTTP status came back), usable or not. */
const ANSWERED = ['ok', 'http_429', 'http_504', 'http_other', 'malformed', 'too_large'] as const;

/**
 * Nothing measured is nothing to pass on: a plan that held no request (a rate with a misplaced decimal point, a
 * Poisson draw of none), or a phase that planned requests none of which was answered (all unsent, say),
 * is inconclusive. Checks whose data is absent are already never a pass, but a phase may have none that
 * apply (no documented target, no error check). A phase that planned none beside others that did is not
 * judged (the arrival process runs across phases: tiny phases may hold no arrival).
 */
function measuredChecks(phases: readonly PhaseInput[]): Check[] {
  const base = { id: 'measured', status: 'inconclusive' as const, observed: 0, interval: null };
  // The whole plan held none: every phase says so (its row in the table is not a pass either).
  if (phases.every((p) => p.planned === 0)) {
    const which = phases.length === 1 ? 'it planned none' : `none of its ${phases.length} phases planned one`;
    return phases.map((p) => ({ ...base, phase: p.name, what: 'something measured', reason: `the plan held no request (${which}): nothing was measured, so nothing can pass` }));
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

/**
 * A fail that only requests dropped at the client's maxInFlight could have caused (`onDrops`), when the
 * generator stood still long enough to fill the slots by itself, is the generator's as much as the service's:
 * while it stands still, arrivals fall due unsent and answers wait unread, holding their slots, then the overdue
 * arrivals leave together. Its worst stall (model time: the phase's send-lag max or the event loop's max delay;
 * at time scale k a stall of 0.8 s of wall time is 48 s of model time at k = 60) × the phase's peak arrival rate
 * must reach maxInFlight: lateness of a fraction of a slot (200 ms at 200 rpm) cannot have caused the drops, and
 * the fail stands. Lateness does not add to drops as it adds to latency, so the latency budget is not the gate.
 */
function generatorCapped(check: Check, phase: PhaseInput, onDrops: boolean, generator: GeneratorHealth): Check {
  const dropped = phase.all.outcomes.dropped;
  const cap = phase.inFlight;
  if (check.status !== 'fail' || !onDrops || dropped === 0 || cap?.targetMs === undefined || !(cap.targetMs > 0)) return check;
  const lagMax = phase.all.sendLag.count === 0 ? 0 : phase.all.sendLag.percentileMs(100);
  const stallMs = Math.max(lagMax, generator.eventLoopDelayMaxMs ?? generator.eventLoopDelayP99Ms ?? 0);
  // neededAtTarget is the peak rate × the target (Little's law): the peak rate per model ms is its quotient.
  const perMs = cap.neededAtTarget / cap.targetMs;
  const overdue = stallMs * perMs;
  if (overdue < cap.maxInFlight) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${dropped} requests were dropped at the client's maxInFlight while the generator was late (its worst stall, ${formatMs(stallMs)} of model time, at the phase's peak rate of ${rpm(perMs * 60_000)} rpm leaves ${Math.floor(overdue)} arrivals overdue, enough to fill the ${cap.maxInFlight} slots by itself): overdue arrivals leave together and unread answers hold their slots, so the drops may be the generator's, not the service's`,
  };
}

export function evaluateVerdict(input: VerdictInput): Verdict {
  const checks = [...input.phases.flatMap((p) => phaseChecks(p, input.documentedTargets, input.generator)), ...measuredChecks(input.phases)];
  const failed = checks.filter((c) => c.status === 'fail');
  const inconclusive = checks.filter((c) => c.status === 'inconclusive');
  const status: CheckStatus = failed.length > 0 ? 'fail' : inconclusive.length > 0 ? 'inconclusive' : 'pass';
  const deciding = status === 'fail' ? failed : status === 'inconclusive' ? inconclusive : [];
  return { status, checks, reasons: deciding.map((c) => `${c.phase === null ? 'run' : `phase ${c.phase}`}: ${c.what}: ${c.reason}`), notes: lateNotes(input) };
}

/** One note per phase whose generator broke the budget of its tightest latency target, even where no result changed. */
function lateNotes(input: VerdictInput): string[] {
  const notes: string[] = [];
  for (const phase of input.phases) {
    const targets = [
      ...(input.documentedTargets ? phase.bands.flatMap((b) => (b.band === undefined ? [] : [b.band.p95TargetMs])) : []),
      ...phase.thresholds.flatMap((t) => (t.kind === 'percentile' && t.stage === undefined ? [t.valueMs] : [])),
    ];
    if (targets.length === 0) continue;
    const lag = phase.steady.sendLag.count === 0 ? 0 : phase.steady.sendLag.percentileMs(99);
    const late = generatorOverBudget(lag, input.generator, Math.min(...targets));
    if (late !== undefined) {
      notes.push(`phase ${phase.name}: the generator was late (${late.text}): lateness only inflates latency, so results it could have caused were checked again on service time or made inconclusive`);
    }
  }
  return notes;
}
