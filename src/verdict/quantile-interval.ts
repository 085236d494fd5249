/**
 * A distribution-free confidence interval for a quantile, from order statistics: for a sample of
 * n, the true q-quantile lies between the l-th and u-th smallest values with probability
 *   P(l ≤ B < u), B ~ Binomial(n, q),
 * whatever the distribution. We take the narrowest symmetric-tailed ranks giving at least the
 * confidence asked. With too few samples no such ranks exist (for p95 at 95 %, n < 72 has no upper
 * bound): a p95 cannot be decided from them, and the verdict says so.
 */

export interface RankInterval {
  /** 1-based rank of the lower bound. */
  readonly lowerRank: number;
  /** 1-based rank of the upper bound. */
  readonly upperRank: number;
}

/** log of the Binomial(n, q) probability mass at k. */
function logPmf(n: number, q: number, k: number, logFactorials: Float64Array): number {
  return logFactorials[n]! - logFactorials[k]! - logFactorials[n - k]! + k * Math.log(q) + (n - k) * Math.log1p(-q);
}

/** Ranks [l, u] such that P(X(l) ≤ ξq ≤ X(u)) ≥ confidence, or undefined when the sample is too small. */
export function quantileRankInterval(n: number, q: number, confidence = 0.95): RankInterval | undefined {
  if (n < 1) return undefined;
  const tail = (1 - confidence) / 2;
  const logFactorials = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) logFactorials[i] = logFactorials[i - 1]! + Math.log(i);
  // cdf[k] = P(B ≤ k)
  let cdf = 0;
  let lowerRank = 0;
  let upperRank: number | undefined;
  for (let k = 0; k <= n; k++) {
    cdf += Math.exp(logPmf(n, q, k, logFactorials));
    // X(k+1) is below ξ with probability P(B ≥ k+1) = 1 − cdf[k]; keep the largest rank with P(B ≤ k) ≤ tail.
    if (cdf <= tail) lowerRank = k + 1;
    if (upperRank === undefined && cdf >= 1 - tail) upperRank = k + 1;
  }
  if (lowerRank < 1 || upperRank === undefined || upperRank > n) return undefined;
  return { lowerRank, upperRank };
}
