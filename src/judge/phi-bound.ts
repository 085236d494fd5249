/**
 * How sure a leak rate is: exact (Clopper-Pearson) one-sided 95 % bounds of a binomial proportion. 0 items leaked of
 * 2,000 says the rate is at most 0.15 % at 95 %, not that it is 0 %.
 */

const CONFIDENCE = 0.95;

/** P(X ≤ x) for X ~ Binomial(n, p), summed in log space (no underflow at large n). */
function binomialCdf(x: number, n: number, p: number): number {
  if (p <= 0) return 1;
  if (p >= 1) return x >= n ? 1 : 0;
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logTerm = n * logQ;
  let sum = Math.exp(logTerm);
  for (let k = 0; k < x; k++) {
    logTerm += Math.log((n - k) / (k + 1)) + logP - logQ;
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/** The p in [0, 1] where `f` (decreasing in p) crosses `target`, by bisection. */
function solveDecreasing(f: (p: number) => number, target: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The rate's upper bound at 95 %: `x` of `n` seen, the true rate is at most this (1 when x = n). */
export function upperBound95(x: number, n: number): number {
  if (x >= n) return 1;
  return solveDecreasing((p) => binomialCdf(x, n, p), 1 - CONFIDENCE);
}

/** The rate's lower bound at 95 %: `x` of `n` seen, the true rate is at least this (0 when x = 0). */
export function lowerBound95(x: number, n: number): number {
  if (x <= 0) return 0;
  // P(X ≥ x) = 1 − P(X ≤ x − 1) grows with p: where it reaches 5 %.
  return solveDecreasing((p) => binomialCdf(x - 1, n, p), CONFIDENCE);
}
