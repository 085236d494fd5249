import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import { quantileRankInterval } from './quantile-interval.js';

describe('quantileRankInterval', () => {
  it('has no interval for p95 with too few samples (an upper bound needs 1 − 0.95^n ≥ 0.975, n ≥ 72)', () => {
    expect(quantileRankInterval(71, 0.95)).toBeUndefined();
    expect(quantileRankInterval(72, 0.95)).toBeDefined();
  });

  it('brackets the sample p95 rank and narrows as n grows', () => {
    const small = quantileRankInterval(100, 0.95)!;
    const large = quantileRankInterval(10_000, 0.95)!;
    expect(small.lowerRank).toBeLessThanOrEqual(95);
    expect(small.upperRank).toBeGreaterThanOrEqual(96);
    expect(large.lowerRank).toBeLessThanOrEqual(9500);
    expect(large.upperRank).toBeGreaterThanOrEqual(9500);
    expect((large.upperRank - large.lowerRank) / 10_000).toBeLessThan((small.upperRank - small.lowerRank) / 100);
  });

  it('covers the true p95 of a known distribution at least 95 % of the time', () => {
    // Uniform(0, 1): the true p95 is 0.95. Draw many samples of 200 and count coverage.
    const rng = createRng(3);
    const n = 200;
    const { lowerRank, upperRank } = quantileRankInterval(n, 0.95)!;
    let covered = 0;
    const trials = 2000;
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: n }, () => rng.next()).sort((a, b) => a - b);
      if (sample[lowerRank - 1]! <= 0.95 && 0.95 <= sample[upperRank - 1]!) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.94);
  });
});
