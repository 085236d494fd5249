import { describe, expect, it } from 'vitest';

import { fisherGreater, logGamma } from './fisher.js';

describe("Fisher's exact test, one-sided", () => {
  it('ln Γ matches factorials and Γ(1/2)', () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(11)).toBeCloseTo(Math.log(3628800), 10);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(1001)).toBeCloseTo(5912.128178939938, 6); // ln 1000!
  });

  it('gives the textbook tails', () => {
    // The lady tasting tea: 3 of 4 right in each group of 4 → P(X ≥ 3) = 17/70.
    expect(fisherGreater(1, 4, 3, 4)).toBeCloseTo(17 / 70, 12);
    // 0 of 10 against 5 of 10: C(10,5)/C(20,5) … summed: 0.01625…
    expect(fisherGreater(0, 10, 5, 10)).toBeCloseTo(0.016253869969040248, 12);
  });

  it('says nothing is unusual when the second rate is not higher, or there are no events', () => {
    expect(fisherGreater(5, 100, 5, 100)).toBeGreaterThan(0.5);
    expect(fisherGreater(10, 100, 0, 100)).toBe(1);
    expect(fisherGreater(0, 100, 0, 100)).toBe(1);
  });

  it('separates chance from a change at the sizes runs have', () => {
    expect(fisherGreater(0, 500, 3, 500)).toBeGreaterThan(0.1); // 3 of 500 after 0 of 500: could be chance
    expect(fisherGreater(0, 500, 12, 500)).toBeLessThan(0.001); // 12 of 500: not chance
    expect(fisherGreater(50, 10_000, 80, 10_000)).toBeLessThan(0.01);
  });

  it('refuses counts that are not counts', () => {
    expect(() => fisherGreater(3, 2, 0, 1)).toThrow(/k ≤ n/);
    expect(() => fisherGreater(-1, 2, 0, 1)).toThrow(/k1: expected a whole number/);
  });
});
