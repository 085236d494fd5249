import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { MsHistogram } from './histogram.js';

/** HDR's own bucketing (same settings as MsHistogram): the top of the bucket that holds `us`, in ms. */
const reference = hdr.build({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 2,
  numberOfSignificantValueDigits: 3,
  autoResize: true,
  useWebAssembly: false,
}) as hdr.JsHistogram;
const atHdrPrecision = (us: number): number => reference.highestEquivalentValue(us) / 1000;

/** n distinct values (integer µs, 1 ms to 20 s), recorded in a shuffled order; returns them sorted. */
function distinctSample(n: number, seed: number): { h: MsHistogram; sorted: number[] } {
  const rng = createRng(seed);
  const seen = new Set<number>();
  while (seen.size < n) seen.add(1000 + Math.floor(rng.next() * 19_999_000));
  const values = [...seen];
  const h = MsHistogram.create();
  for (const us of values) h.recordMs(us / 1000);
  return { h, sorted: values.sort((a, b) => a - b) };
}

describe('MsHistogram', () => {
  it('gives percentiles within 3 significant digits, in ms', () => {
    const h = MsHistogram.create();
    for (let i = 1; i <= 1000; i++) h.recordMs(i); // 1 ms … 1000 ms
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.p50).toBeCloseTo(500, -1);
    expect(Math.abs(s.p95 - 950) / 950).toBeLessThan(0.001);
    expect(Math.abs(s.p99 - 990) / 990).toBeLessThan(0.001);
    expect(s.max).toBeGreaterThanOrEqual(1000);
    expect(Math.abs(s.max - 1000) / 1000).toBeLessThan(0.001);
    expect(s.mean).toBeCloseTo(500.5, 0);
  });

  it('keeps sub-millisecond values (µs resolution) and clamps negatives to 0', () => {
    const h = MsHistogram.create();
    h.recordMs(0.25);
    h.recordMs(-0.01);
    expect(h.percentileMs(100)).toBeCloseTo(0.25, 3);
    expect(h.percentileMs(1)).toBe(0);
  });

  it('round-trips through its encoding and merges shards to the single-process result', () => {
    const whole = MsHistogram.create();
    const a = MsHistogram.create();
    const b = MsHistogram.create();
    for (let i = 0; i < 5000; i++) {
      const v = (i * 7919) % 15_000;
      whole.recordMs(v);
      (i % 2 === 0 ? a : b).recordMs(v);
    }
    const merged = MsHistogram.decode(a.encode());
    merged.add(MsHistogram.decode(b.encode()));
    expect(merged.summary()).toEqual(whole.summary());
  });

  it('finds the value at every rank exactly: the r-th smallest, for every n up to 400 and 30 n up to 20,000', () => {
    // 100·r/n in floating point put 8,997 (n, r) pairs up to n = 20,000 one rank high (n = 193, 379, 386, 387, 999,
    // 1453, … 19,999).
    const rng = createRng(11);
    const ns = [
      ...Array.from({ length: 400 }, (_, i) => i + 1),
      999,
      1453,
      19_999,
      20_000,
      ...Array.from({ length: 26 }, () => 401 + Math.floor(rng.next() * 19_600)),
    ];
    for (const n of ns) {
      const { h, sorted } = distinctSample(n, n);
      const wrong: string[] = [];
      for (let r = 1; r <= n; r++) {
        const expected = atHdrPrecision(sorted[r - 1]!);
        if (h.rankMs(r) !== expected) wrong.push(`n ${n}, rank ${r}: ${h.rankMs(r)} ms, expected ${expected} ms`);
      }
      expect(wrong.slice(0, 3)).toEqual([]);
    }
  }, 60_000);

  it('reads percentiles and the mean as HDR itself does, from one cached walk of the buckets', () => {
    const rng = createRng(5);
    for (const n of [1, 11, 183, 1000, 5003]) {
      const h = MsHistogram.create();
      const own = hdr.build({
        lowestDiscernibleValue: 1,
        highestTrackableValue: 2,
        numberOfSignificantValueDigits: 3,
        autoResize: true,
        useWebAssembly: false,
      });
      for (let i = 0; i < n; i++) {
        const ms = Math.exp(rng.next() * 10);
        h.recordMs(ms);
        own.recordValue(Math.max(0, Math.round(ms * 1000)));
      }
      for (const p of [1, 50, 90, 95, 99, 99.9, 100])
        expect(h.percentileMs(p), `n ${n}, p ${p}`).toBe(own.getValueAtPercentile(p) / 1000);
      expect(h.summary().mean).toBeCloseTo(own.mean / 1000, 9);
    }
  });

  it('reports an empty histogram as NaN, never as 0', () => {
    expect(MsHistogram.create().summary()).toMatchObject({ count: 0, p95: Number.NaN, max: Number.NaN });
  });
});
