import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { inFlightByWindow } from './in-flight.js';

const sorted = (xs: number[]): Float64Array => Float64Array.from(xs).sort();

/** The same by brute force: in flight at every ms step of 0.5 ms. */
function brute(attempts: [number, number][], windowMs: number, windows: number): { max: number[]; mean: number[] } {
  const step = 0.5;
  const max = new Array<number>(windows).fill(0);
  const area = new Array<number>(windows).fill(0);
  for (let t = 0; t < windows * windowMs; t += step) {
    const n = attempts.filter(([s, e]) => s <= t && t < e).length;
    const w = Math.floor(t / windowMs);
    max[w] = Math.max(max[w]!, n);
    area[w]! += n * step;
  }
  return { max, mean: area.map((a) => a / windowMs) };
}

describe('requests in flight per window', () => {
  it('counts the most at any moment and the time-weighted mean, carrying attempts across windows', () => {
    // [0, 15) spans windows 0 and 1; [2, 4) and [3, 5) overlap it: 3 at once in window 0; [25, 40) alone, in windows 2
    // and 3.
    const attempts: [number, number][] = [
      [0, 15],
      [2, 4],
      [3, 5],
      [25, 40],
    ];
    const r = inFlightByWindow(sorted(attempts.map((a) => a[0])), sorted(attempts.map((a) => a[1])), 10, 4);
    expect([...r.max]).toEqual([3, 1, 1, 1]);
    expect([...r.mean]).toEqual([(10 + 2 + 2) / 10, 5 / 10, 5 / 10, 10 / 10]);
  });

  it('does not count an attempt that ended at the instant another was sent as overlapping it', () => {
    const r = inFlightByWindow(sorted([0, 5]), sorted([5, 8]), 10, 1);
    expect(r.max[0]).toBe(1);
  });

  it('agrees with brute force on random attempts (times on a 0.5 ms grid)', () => {
    const g = createRng(3);
    const attempts: [number, number][] = Array.from({ length: 300 }, () => {
      const s = Math.floor(g.next() * 400) / 2;
      return [s, s + Math.floor(g.next() * 60) / 2 + 0.5];
    });
    const r = inFlightByWindow(sorted(attempts.map((a) => a[0])), sorted(attempts.map((a) => a[1])), 25, 10);
    const b = brute(attempts, 25, 10);
    expect([...r.max]).toEqual(b.max);
    r.mean.forEach((m, i) => expect(m).toBeCloseTo(b.mean[i]!, 9));
  });
});
