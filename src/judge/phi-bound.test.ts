import { describe, expect, it } from 'vitest';

import { lowerBound95, upperBound95 } from './phi-bound.js';

describe('leak rate bounds (Clopper-Pearson, one-sided 95 %)', () => {
  it('says 0 leaked of 2,000 is at most 0.15 %, not 0 %', () => {
    expect(upperBound95(0, 2000)).toBeCloseTo(0.0014967, 6);
    expect(lowerBound95(0, 2000)).toBe(0);
  });
  it('matches the beta quantiles for 5 of 1,000', () => {
    expect(upperBound95(5, 1000)).toBeCloseTo(0.0104841, 6);
    expect(lowerBound95(5, 1000)).toBeCloseTo(0.0019722, 6);
  });
  it('is 1 when every item leaked', () => {
    expect(upperBound95(3, 3)).toBe(1);
  });
});
