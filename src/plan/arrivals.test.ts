import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import {
  type ArrivalProcess,
  expectedArrivals,
  phaseArrivals as enterPhase,
  planArrivals,
  type RateShape,
  timeOfArrival,
} from './arrivals.js';

/** The arrivals of a plan of one phase (at most maxArrivals). */
const phaseArrivals = (
  shape: RateShape,
  process: ArrivalProcess,
  rng: ReturnType<typeof createRng>,
  maxArrivals?: number,
): Float64Array => planArrivals([shape], process, rng, maxArrivals)[0]!;

const MINUTE = 60_000;

describe('phaseArrivals, constant', () => {
  it.each([
    { rpm: 100, minutes: 10, count: 1000, spacingMs: 600 },
    { rpm: 200, minutes: 5, count: 1000, spacingMs: 300 },
    { rpm: 300, minutes: 1, count: 300, spacingMs: 200 },
  ])('$rpm rpm for $minutes min: $count arrivals every $spacingMs ms from 0', ({ rpm, minutes, count, spacingMs }) => {
    const a = phaseArrivals({ durationMs: minutes * MINUTE, fromRpm: rpm, toRpm: rpm }, 'constant', createRng(1));
    expect(a.length).toBe(count);
    expect(a[0]).toBe(0);
    expect(a[1]! - a[0]!).toBeCloseTo(spacingMs, 9);
    expect(a[count - 1]).toBeCloseTo((count - 1) * spacingMs, 6);
  });

  it('ramps 100 → 300 rpm over 2 minutes: 400 arrivals, spacing shrinking from 600 to about 200 ms', () => {
    const shape = { durationMs: 2 * MINUTE, fromRpm: 100, toRpm: 300 };
    const a = phaseArrivals(shape, 'constant', createRng(1));
    expect(a.length).toBe(400);
    expect(a[1]! - a[0]!).toBeCloseTo(600, -1);
    expect(a[399]! - a[398]!).toBeCloseTo(200, -1);
    // Offsets are rounded to the microsecond: Λ at each is within 1e-5 of a whole count.
    for (let i = 1; i < a.length; i++) expect(expectedArrivals(shape, a[i]!)).toBeCloseTo(i, 5);
  });

  it('ramps down 300 → 100 rpm: the same count, spacing growing', () => {
    const a = phaseArrivals({ durationMs: 2 * MINUTE, fromRpm: 300, toRpm: 100 }, 'constant', createRng(1));
    expect(a.length).toBe(400);
    expect(a[1]! - a[0]!).toBeLessThan(a[399]! - a[398]!);
  });

  it('inverts the cumulative rate exactly', () => {
    const shape = { durationMs: 90_000, fromRpm: 50, toRpm: 250 };
    for (const n of [1, 17, 100, 224]) expect(expectedArrivals(shape, timeOfArrival(shape, n))).toBeCloseTo(n, 9);
  });
});

describe('phaseArrivals, entered part-way to the next arrival', () => {
  it.each([
    { dueIn: 0, offsets: [0, 1000], out: 0.5 },
    { dueIn: 0.25, offsets: [250, 1250], out: 0.75 },
    { dueIn: 0.5, offsets: [500], out: 0 },
    { dueIn: 1.75, offsets: [], out: 0.25 },
  ])('1.5 s at 60 rpm entered $dueIn before the next arrival: $offsets, leaving $out', ({ dueIn, offsets, out }) => {
    const phase = enterPhase({ durationMs: 1500, fromRpm: 60, toRpm: 60 }, 'constant', createRng(1), dueIn);
    expect(Array.from(phase.offsetsMs)).toEqual(offsets);
    expect(phase.dueIn).toBeCloseTo(out, 12);
  });
});

describe('phaseArrivals, poisson', () => {
  it('has the planned rate on average, exponential gaps (cv ≈ 1), and repeats from its seed', () => {
    const shape = { durationMs: 600 * MINUTE, fromRpm: 120, toRpm: 120 };
    const a = phaseArrivals(shape, 'poisson', createRng(5));
    expect(a.length).toBeGreaterThan(72_000 * 0.98);
    expect(a.length).toBeLessThan(72_000 * 1.02);
    const gaps = Array.from(a.subarray(1), (t, i) => t - a[i]!);
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    const sd = Math.sqrt(gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length);
    expect(mean).toBeCloseTo(500, -1);
    expect(sd / mean).toBeGreaterThan(0.97);
    expect(sd / mean).toBeLessThan(1.03);
    expect(phaseArrivals(shape, 'poisson', createRng(5))).toEqual(a);
  });

  it('follows a ramp: the second half of 100 → 300 rpm holds about 5/8 of the arrivals', () => {
    const shape = { durationMs: 200 * MINUTE, fromRpm: 100, toRpm: 300 };
    const a = phaseArrivals(shape, 'poisson', createRng(2));
    const secondHalf = a.filter((t) => t >= shape.durationMs / 2).length;
    expect(secondHalf / a.length).toBeCloseTo(5 / 8, 2);
  });
});

describe('planArrivals, bounded', () => {
  it('never generates more than maxArrivals, however the Poisson draws fall', () => {
    // Draws of 0 make every exponential gap 0: an unguarded loop would never reach Λ(D).
    const stuck = { next: () => 0 };
    const a = phaseArrivals({ durationMs: MINUTE, fromRpm: 10, toRpm: 10 }, 'poisson', stuck, 1000);
    expect(a.length).toBe(1000);
  });

  it('stops constant arrivals at maxArrivals too, counted across phases', () => {
    expect(phaseArrivals({ durationMs: MINUTE, fromRpm: 600, toRpm: 600 }, 'constant', createRng(1), 250).length).toBe(
      250,
    );
    const shape = { durationMs: MINUTE, fromRpm: 600, toRpm: 600 };
    expect(planArrivals([shape, shape, shape], 'constant', createRng(1), 1000).map((a) => a.length)).toEqual([
      600, 400, 0,
    ]);
  });
});
