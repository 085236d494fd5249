/**
 * Confidence bounds for a quantile of latencies that may be correlated in time.
 *
 * Order statistics. For n independent samples, the true q-quantile ξ is above the l-th smallest value
 * with probability P(B ≥ l) and below the u-th with probability P(B < u), B ~ Binomial(n, q), whatever
 * the distribution. Each side is taken at 97.5 % on its own (together, the two-sided 95 % interval).
 * With too few samples a side does not exist: for p95, n < 72 has no upper bound; for p99, n < 368.
 *
 * Sectioning. Queueing makes latencies correlated (a slow spell delays the requests behind it), and
 * order statistics then claim more precision than the sample holds: the simulated `degraded` fleet at
 * 200 rpm saw its "95 %" interval of p95 cover the truth 82 % of the time. So the sample also comes in
 * b time-contiguous blocks (recorder: `TIME_BLOCKS` equal spans of model time), and the spread of the
 * blocks' own quantiles around the whole sample's measures the precision that the correlation leaves:
 *   ξ̂ ± t(b−1, 0.975) · S / √b,   S² = Σ (ξ̂_j − ξ̂)² / (b − 1),
 * ξ̂ the whole sample's quantile and ξ̂_j block j's (nearest rank). This is sectioning, the batch-means
 * variant centred on the full-sample estimator (Asmussen & Glynn, Stochastic Simulation: Algorithms
 * and Analysis, Springer 2007, §III.5a). It holds as long as latencies decorrelate within a block.
 *
 * Each bound is the wider of the two (the hull): on independent samples, order statistics are exact
 * and sectioning only widens them a little (median 1.1–1.3 ×, tested ≤ 1.5 ×); on correlated ones,
 * sectioning widens them as far as the correlation needs. A side exists when its order statistic does.
 * `npm run bench:coverage` measures coverage and width on the mock's simulated fleet.
 */
import type { MsHistogram } from '../recorder/index.js';

/** 1-based ranks of each side of the order-statistics interval; undefined when too few samples for that side. */
interface RankBounds {
  readonly lowerRank: number | undefined;
  readonly upperRank: number | undefined;
}

/** The tail left out on each side: 2.5 %, so each bound holds at 97.5 % and both at 95 %. */
const ONE_SIDED_TAIL = 0.025;

/** log of the Binomial(n, q) probability mass at k. */
function logPmf(n: number, q: number, k: number, logFactorials: Float64Array): number {
  return logFactorials[n]! - logFactorials[k]! - logFactorials[n - k]! + k * Math.log(q) + (n - k) * Math.log1p(-q);
}

/** The order-statistics ranks of each side: P(X(l) ≤ ξ) ≥ 1 − tail and P(ξ ≤ X(u)) ≥ 1 − tail, the narrowest such. */
export function quantileRankBounds(n: number, q: number, tail = ONE_SIDED_TAIL): RankBounds {
  if (n < 1) return { lowerRank: undefined, upperRank: undefined };
  const logFactorials = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i);
  // cdf after step k = P(B ≤ k). X(k+1) ≤ ξ with probability P(B ≥ k+1) = 1 − P(B ≤ k).
  let cdf = 0;
  let lowerRank: number | undefined;
  let upperRank: number | undefined;
  for (let k = 0; k <= n; k++) {
    cdf += Math.exp(logPmf(n, q, k, logFactorials));
    if (cdf <= tail) lowerRank = k + 1;
    if (upperRank === undefined && cdf >= 1 - tail) upperRank = k + 1;
  }
  return { lowerRank, upperRank: upperRank !== undefined && upperRank <= n ? upperRank : undefined };
}

/** The fewest samples that give the q-quantile a bound on `side`. */
export function minimumSamples(q: number, side: 'lower' | 'upper', tail = ONE_SIDED_TAIL): number {
  const has = (n: number): boolean =>
    quantileRankBounds(n, q, tail)[side === 'lower' ? 'lowerRank' : 'upperRank'] !== undefined;
  // The side exists once (1 − q)^n (lower) or q^n (upper) is at most the tail: search around that.
  let n = Math.max(1, Math.floor(Math.log(tail) / Math.log(side === 'lower' ? 1 - q : q)) - 2);
  while (has(n) && n > 1) n--;
  while (!has(n)) n++;
  return n;
}

/**
 * The nearest rank of the q-quantile of n values: ⌈q·n⌉, at least 1 (q·n within 1e-9 of a whole number counts as it).
 */
export function nearestRank(q: number, n: number): number {
  const x = q * n;
  const whole = Math.round(x);
  return Math.max(1, Math.abs(x - whole) <= 1e-9 * Math.max(1, x) ? whole : Math.ceil(x));
}

/** Student's t quantile at 0.975 for 1–30 degrees of freedom. */
const STUDENT_T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
] as const;

/** t(df, 0.975): the one-sided 97.5 % point of Student's t. */
export function studentT975(df: number): number {
  const t = STUDENT_T_975[df - 1];
  if (t === undefined)
    throw new RangeError(`t(0.975) is tabled for 1–${STUDENT_T_975.length} degrees of freedom, not ${df}`);
  return t;
}

/** A sample in time order: all its values, and the same values by time block (none when the order is unknown). */
export interface TimeOrderedSample {
  readonly all: MsHistogram;
  readonly blocks: readonly MsHistogram[];
}

/** A quantile's estimate and bounds, in ms; a side is null when the sample is too small for it. */
interface QuantileInterval {
  readonly count: number;
  /** The sample quantile (nearest rank). */
  readonly estimateMs: number;
  /** At least this with 97.5 % confidence. */
  readonly lowerMs: number | null;
  /** At most this with 97.5 % confidence. */
  readonly upperMs: number | null;
  /** Blocks with data that sectioning used (0: order statistics alone, which assume independence). */
  readonly blocksUsed: number;
}

/**
 * Half-width of the sectioning interval (ms) around `estimateMs`, or undefined with fewer than 2 blocks holding data.
 */
function sectioningHalfWidth(
  blocks: readonly MsHistogram[],
  q: number,
  estimateMs: number,
  capMs: number,
): { halfMs: number; blocks: number } | undefined {
  const estimates = blocks.filter((b) => b.count > 0).map((b) => Math.min(capMs, b.rankMs(nearestRank(q, b.count))));
  const b = estimates.length;
  if (b < 2) return undefined;
  const s2 = estimates.reduce((sum, e) => sum + (e - estimateMs) ** 2, 0) / (b - 1);
  return { halfMs: (studentT975(b - 1) * Math.sqrt(s2)) / Math.sqrt(b), blocks: b };
}

/**
 * The q-quantile (0 < q < 1) of the sample with its bounds (see the top of this file), or undefined
 * when it is empty. `capMs`: sectioning is done on min(latency, capMs), whose quantile is min(ξ, capMs):
 * for a cap above the target judged, it is under the target exactly when ξ is, so the decision is the
 * same, but one block holding a spell of unanswered requests (recorded far above any target) no longer
 * blows the spread up to days and the interval with it (a clear fail had become inconclusive).
 */
export function quantileInterval(
  sample: TimeOrderedSample,
  q: number,
  capMs = Number.POSITIVE_INFINITY,
): QuantileInterval | undefined {
  const n = sample.all.count;
  if (n === 0) return undefined;
  const estimateMs = sample.all.rankMs(nearestRank(q, n));
  const { lowerRank, upperRank } = quantileRankBounds(n, q);
  const centreMs = Math.min(capMs, estimateMs);
  const sectioning = sectioningHalfWidth(sample.blocks, q, centreMs, capMs);
  const halfMs = sectioning?.halfMs ?? 0;
  return {
    count: n,
    estimateMs,
    // A latency is never negative, so neither is its lower bound.
    lowerMs: lowerRank === undefined ? null : Math.min(sample.all.rankMs(lowerRank), Math.max(0, centreMs - halfMs)),
    upperMs: upperRank === undefined ? null : Math.max(sample.all.rankMs(upperRank), centreMs + halfMs),
    blocksUsed: sectioning?.blocks ?? 0,
  };
}
