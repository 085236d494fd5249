import { describe, expect, it } from 'vitest';
import { MsHistogram } from './histogram.js';

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

  it('reports an empty histogram as NaN, never as 0', () => {
    expect(MsHistogram.create().summary()).toMatchObject({ count: 0, p95: Number.NaN, max: Number.NaN });
  });
});
