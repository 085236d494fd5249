/**
 * Fisher's exact test, one-sided: is a rate (429s, 504s, errors) higher in the second run than chance
 * explains, if both runs had the same underlying rate? Exact for any counts, small ones included,
 * where a normal approximation misleads (0 of 500 against 3 of 500).
 */

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7): about 15 significant digits. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** ln of n choose k. */
const logChoose = (n: number, k: number): number => logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);

/**
 * The one-sided p-value that the second run's rate is higher: the chance, with `k1 + k2` events spread
 * at random over the `n1 + n2` requests, that the second run's `n2` hold `k2` or more (hypergeometric tail).
 */
export function fisherGreater(k1: number, n1: number, k2: number, n2: number): number {
  for (const [name, v] of Object.entries({ k1, n1, k2, n2 }))
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name}: expected a whole number ≥ 0, got ${v}`);
  if (k1 > n1 || k2 > n2) throw new RangeError(`expected k ≤ n, got ${k1} of ${n1} and ${k2} of ${n2}`);
  const total = n1 + n2;
  const events = k1 + k2;
  if (n2 === 0 || events === 0) return 1;
  const denominator = logChoose(total, n2);
  let p = 0;
  for (let x = k2; x <= Math.min(events, n2); x++)
    p += Math.exp(logChoose(events, x) + logChoose(total - events, n2 - x) - denominator);
  return Math.min(1, p);
}
