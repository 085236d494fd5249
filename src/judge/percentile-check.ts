/**
 * A percentile judged on its confidence bounds (see verdict.ts), gated by the generator's lateness: a
 * result a late generator could have caused stands only when it survives taking that lateness off, or
 * service time gives it too.
 */
import { formatMs, isUnanswered } from '../core/index.js';
import type { MsHistogram, Slice } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, type CheckStatus, compare } from './check.js';
import { generatorOverBudget, worstLatenessMs } from './generator-budget.js';
import { minimumSamples, quantileInterval, type TimeOrderedSample } from './quantile-interval.js';
import type { GeneratorHealth } from './verdict-input.js';

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
export function judgePercentile(
  sample: TimeOrderedSample,
  percentile: number,
  op: Threshold['op'],
  targetMs: number,
): PercentileResult {
  const q = percentile / 100;
  // Sectioning on latencies capped above the target: the same decision against it (see quantileInterval), without the
  // stand-in value of unanswered requests. Capped at the slowest answer, or twice the target if that is higher, a
  // sample with no unanswered request is not capped at all.
  const capMs = op === '==' ? Number.POSITIVE_INFINITY : Math.max(2 * targetMs, slowestAnsweredMs(sample.all));
  const found = quantileInterval(sample, q, capMs);
  if (found === undefined)
    return { status: 'inconclusive', observed: null, interval: null, reason: 'no response was measured' };
  const { count, estimateMs: observed, lowerMs: lower, upperMs: upper } = found;
  const interval: [number | null, number | null] = [lower, upper];
  if (lower === null && upper === null) {
    const needed = Math.min(minimumSamples(q, 'lower'), minimumSamples(q, 'upper'));
    return {
      status: 'inconclusive',
      observed,
      interval,
      reason: `${count} responses are too few to bound p(${percentile}) (at least ${needed} needed)`,
    };
  }
  const p = `p(${percentile}) ${formatMs(observed)}`;
  const range =
    lower !== null && upper !== null
      ? `${p}, 95 % interval ${formatMs(lower)}–${formatMs(upper)}`
      : lower !== null
        ? `${p}, 97.5 % lower bound ${formatMs(lower)}, no upper bound`
        : `${p}, 97.5 % upper bound ${formatMs(upper!)}, no lower bound`;
  if (op === '==') {
    return {
      status: compare(observed, op, targetMs) ? 'pass' : 'fail',
      observed,
      interval,
      reason: `${range} (compared as measured)`,
    };
  }
  const status = decide(lower, upper, op, targetMs);
  if (status === 'pass') return { status, observed, interval, reason: `${range}: ${op} ${formatMs(targetMs)}` };
  if (status === 'fail') return { status, observed, interval, reason: `${range}: not ${op} ${formatMs(targetMs)}` };
  if (lower !== null && upper !== null)
    return { status, observed, interval, reason: `${range} straddles ${formatMs(targetMs)}` };
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
export function answeredCount(h: MsHistogram): number {
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
 * The result a late generator could have caused for `op`: a fail of an upper bound, a pass of a lower one, either for
 * ==.
 */
function suspect(status: CheckStatus, op: Threshold['op']): boolean {
  if (status === 'inconclusive') return false;
  if (op === '==') return true;
  return (op === '<' || op === '<=') === (status === 'fail');
}

/**
 * A percentile of the slice's latency (answers other than 429) against `op target`, judged on its
 * confidence interval, and gated by the generator's lateness (see the top of verdict.ts).
 */
export function percentileCheck(
  slice: Slice,
  percentile: number,
  op: Threshold['op'],
  targetMs: number,
  generator: GeneratorHealth,
): PercentileResult {
  const latency = judgePercentile(
    { all: slice.latencyExcl429, blocks: slice.latencyExcl429Blocks },
    percentile,
    op,
    targetMs,
  );
  if (!suspect(latency.status, op)) return latency;
  const lag = slice.sendLag.count === 0 ? 0 : slice.sendLag.percentileMs(99);
  const late = generatorOverBudget(lag, generator, targetMs);
  if (late === undefined) return latency;
  // No sample was inflated by more than this: if the result survives taking it off, lateness did not cause it.
  const worstMs = worstLatenessMs(slice, generator);
  if (op !== '==' && latency.interval !== null) {
    const [lower, upper] = latency.interval.map((ms) => (ms === null ? null : ms - worstMs)) as [
      number | null,
      number | null,
    ];
    if (decide(lower, upper, op, targetMs) === latency.status) {
      return {
        ...latency,
        reason: `${latency.reason}; the generator was late (${late.text}), but not enough to cause it: with its worst lateness (${formatMs(worstMs)}) taken off, the interval is ${boundsText(lower, upper)}`,
      };
    }
  }
  if (late.eventLoopBlocked) {
    return {
      ...latency,
      status: 'inconclusive',
      reason: `${latency.reason}, but the generator was late (${late.text}); service time, read on the same blocked event loop, cannot tell the service's lateness from the generator's`,
    };
  }
  const service = judgePercentile(
    { all: slice.serviceExcl429, blocks: slice.serviceExcl429Blocks },
    percentile,
    op,
    targetMs,
  );
  if (service.status === latency.status)
    return {
      ...latency,
      reason: `${latency.reason}; the generator was late (${late.text}), but service time alone gives the same: ${service.reason}`,
    };
  return {
    ...latency,
    status: 'inconclusive',
    reason: `${latency.reason}, but the generator was late (${late.text}) and on service time alone ${service.reason}: the result may be the generator's, not the service's`,
  };
}
