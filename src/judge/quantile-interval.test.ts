import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { MsHistogram } from '../recorder/index.js';
import { minimumSamples, nearestRank, quantileInterval, quantileRankBounds, studentT975 } from './quantile-interval.js';

describe('quantileRankBounds', () => {
  it('has each side on its own: p95 has a lower bound from 2 samples and an upper bound from 72 (1 − 0.95^n ≥ 0.975)', () => {
    expect(quantileRankBounds(1, 0.95)).toEqual({ lowerRank: undefined, upperRank: undefined });
    expect(quantileRankBounds(2, 0.95)).toEqual({ lowerRank: 1, upperRank: undefined });
    expect(quantileRankBounds(71, 0.95).upperRank).toBeUndefined();
    expect(quantileRankBounds(71, 0.95).lowerRank).toBeDefined();
    expect(quantileRankBounds(72, 0.95).upperRank).toBe(72);
    expect(quantileRankBounds(300, 0.99).upperRank).toBeUndefined();
    expect(quantileRankBounds(300, 0.99).lowerRank).toBeGreaterThan(290);
  });

  it('brackets the sample p95 rank and narrows as n grows', () => {
    const small = quantileRankBounds(100, 0.95);
    const large = quantileRankBounds(10_000, 0.95);
    expect(small.lowerRank!).toBeLessThanOrEqual(95);
    expect(small.upperRank!).toBeGreaterThanOrEqual(96);
    expect(large.lowerRank!).toBeLessThanOrEqual(9500);
    expect(large.upperRank!).toBeGreaterThanOrEqual(9500);
    expect((large.upperRank! - large.lowerRank!) / 10_000).toBeLessThan((small.upperRank! - small.lowerRank!) / 100);
  });

  it('covers the true p95 of a known distribution at least 95 % of the time', () => {
    // Uniform(0, 1): the true p95 is 0.95. Draw many samples of 200 and count coverage.
    const rng = createRng(3);
    const n = 200;
    const { lowerRank, upperRank } = quantileRankBounds(n, 0.95);
    let covered = 0;
    const trials = 2000;
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: n }, () => rng.next()).sort((a, b) => a - b);
      if (sample[lowerRank! - 1]! <= 0.95 && 0.95 <= sample[upperRank! - 1]!) covered++;
    }
    expect(covered / trials).toBeGreaterThanOrEqual(0.94);
  });
});

describe('minimumSamples and nearestRank', () => {
  it('gives the fewest samples for each side', () => {
    expect(minimumSamples(0.95, 'upper')).toBe(72);
    expect(minimumSamples(0.99, 'upper')).toBe(368);
    expect(minimumSamples(0.95, 'lower')).toBe(2);
    expect(minimumSamples(0.05, 'lower')).toBe(72);
    for (const [q, side] of [
      [0.999, 'upper'],
      [0.5, 'lower'],
      [0.5, 'upper'],
      [0.01, 'lower'],
    ] as const) {
      const n = minimumSamples(q, side);
      const key = side === 'lower' ? 'lowerRank' : 'upperRank';
      expect(quantileRankBounds(n, q)[key]).toBeDefined();
      expect(quantileRankBounds(n - 1, q)[key]).toBeUndefined();
    }
  });

  it('takes the nearest rank ⌈q·n⌉ without floating-point drift', () => {
    expect(nearestRank(0.95, 300)).toBe(285);
    expect(nearestRank(0.95, 301)).toBe(286);
    expect(nearestRank(0.999, 1000)).toBe(999);
    expect(nearestRank(0.07, 100)).toBe(7); // 0.07 × 100 = 7.000000000000001
    expect(nearestRank(0.01, 1)).toBe(1);
  });
});

describe('studentT975', () => {
  it('is the 97.5 % point of Student t for 1–30 degrees of freedom (checked by integrating the density)', () => {
    const logGamma = (x: number): number => {
      // Lanczos (g = 7, n = 9): ample for a check to 4 digits.
      const c = [
        0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
        12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
      ];
      if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
      const y = x - 1;
      let a = c[0]!;
      const t = y + 7.5;
      for (let i = 1; i < 9; i++) a += c[i]! / (y + i);
      return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
    };
    for (let df = 1; df <= 30; df++) {
      const t = studentT975(df);
      const logC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
      const density = (x: number): number => Math.exp(logC - ((df + 1) / 2) * Math.log1p((x * x) / df));
      // P(0 < T < t) by Simpson's rule; the table has 3 decimals.
      const steps = 20_000;
      const h = t / steps;
      let sum = density(0) + density(t);
      for (let i = 1; i < steps; i++) sum += (i % 2 === 1 ? 4 : 2) * density(i * h);
      expect(Math.abs(0.5 + (sum * h) / 3 - 0.975)).toBeLessThan(2e-4);
    }
    expect(() => studentT975(31)).toThrow(RangeError);
  });
});

describe('quantileInterval', () => {
  const histogramOf = (values: readonly number[]): MsHistogram => {
    const h = MsHistogram.create();
    for (const v of values) h.recordMs(v);
    return h;
  };
  const evenly = (n: number, from: number, to: number): number[] =>
    Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));

  it('is the order-statistics interval when the sample has no time blocks, or blocks that agree', () => {
    const values = evenly(1000, 100, 1100);
    const all = histogramOf(values);
    const { lowerRank, upperRank } = quantileRankBounds(1000, 0.95);
    const alone = quantileInterval({ all, blocks: [] }, 0.95)!;
    expect(alone).toEqual({
      count: 1000,
      estimateMs: all.rankMs(950),
      lowerMs: all.rankMs(lowerRank!),
      upperMs: all.rankMs(upperRank!),
      blocksUsed: 0,
    });
    // Six blocks, each spread like the whole: their p95s sit on the whole's, so sectioning adds little.
    const blocks = Array.from({ length: 6 }, (_, j) => histogramOf(values.filter((_, i) => i % 6 === j)));
    const sectioned = quantileInterval({ all, blocks }, 0.95)!;
    expect(sectioned.blocksUsed).toBe(6);
    expect(sectioned.lowerMs).toBe(alone.lowerMs);
    expect(sectioned.upperMs).toBe(alone.upperMs);
  });

  it('widens to the spread of the blocks\u2019 quantiles when time blocks disagree (a slow spell)', () => {
    // Five calm blocks around 1 s and one slow block around 3 s.
    const blockValues = Array.from({ length: 6 }, (_, j) => evenly(150, j === 5 ? 2500 : 500, j === 5 ? 3500 : 1500));
    const all = histogramOf(blockValues.flat());
    const blocks = blockValues.map(histogramOf);
    const alone = quantileInterval({ all, blocks: [] }, 0.95)!;
    const sectioned = quantileInterval({ all, blocks }, 0.95)!;
    const estimates = blocks.map((b) => b.rankMs(nearestRank(0.95, b.count)));
    const s = Math.sqrt(estimates.reduce((sum, e) => sum + (e - sectioned.estimateMs) ** 2, 0) / 5);
    const half = (studentT975(5) * s) / Math.sqrt(6);
    expect(sectioned.estimateMs).toBe(alone.estimateMs);
    expect(sectioned.lowerMs).toBeCloseTo(Math.max(0, sectioned.estimateMs - half), 6);
    expect(sectioned.upperMs).toBeCloseTo(sectioned.estimateMs + half, 6);
    expect(sectioned.upperMs! - sectioned.lowerMs!).toBeGreaterThan(2 * (alone.upperMs! - alone.lowerMs!));
    expect(sectioned.lowerMs!).toBeGreaterThanOrEqual(0);
  });

  it('has a side only where order statistics have it, ignores empty blocks, and is undefined without data', () => {
    const values = evenly(300, 1000, 2580);
    const blocks = Array.from({ length: 6 }, (_, j) =>
      histogramOf(j === 2 ? [] : values.filter((_, i) => Math.floor(i / 60) === (j > 2 ? j - 1 : j))),
    );
    const p99 = quantileInterval({ all: histogramOf(values), blocks }, 0.99)!;
    expect(p99.upperMs).toBeNull();
    expect(p99.lowerMs).not.toBeNull();
    expect(p99.blocksUsed).toBe(5);
    expect(quantileInterval({ all: MsHistogram.create(), blocks: [] }, 0.95)).toBeUndefined();
    expect(quantileInterval({ all: histogramOf([2]), blocks: [] }, 0.95)).toMatchObject({
      count: 1,
      estimateMs: 2,
      lowerMs: null,
      upperMs: null,
    });
  });
});
