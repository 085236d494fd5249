import { describe, expect, it } from 'vitest';

import { createRng, nextExponential, nextInt } from './rng.js';

describe('createRng', () => {
  it('repeats the same sequence for the same seed and differs across seeds', () => {
    const draw = (seed: number): number[] => {
      const rng = createRng(seed);
      return Array.from({ length: 5 }, () => rng.next());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('draws uniformly in [0, 1): mean near 0.5 over many draws', () => {
    const rng = createRng(7);
    let sum = 0;
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const u = rng.next();
      if (u < 0 || u >= 1) outside++;
      sum += u;
    }
    expect(outside).toBe(0);
    expect(sum / 100_000).toBeCloseTo(0.5, 2);
  });

  it('gives exponential variates with the requested mean and integers inside their bounds', () => {
    const rng = createRng(9);
    let sum = 0;
    for (let i = 0; i < 50_000; i++) sum += nextExponential(rng, 600);
    expect(sum / 50_000).toBeGreaterThan(585);
    expect(sum / 50_000).toBeLessThan(615);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(nextInt(rng, 3, 5));
    expect([...seen].sort()).toEqual([3, 4, 5]);
  });
});
