import { describe, expect, it } from 'vitest';

import type { Summary } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';
import { MAX_GROUPS } from './chart-points.js';
import { runCharts } from './charts.js';

/** A summary as far as the charts read it: `windows` rows of 10 s, one p95 spike, one 429 per window. */
function summary(windows: number): Summary {
  const h = MsHistogram.create();
  for (let i = 1; i <= 100; i++) h.recordMs(i * 10);
  return {
    phases: [
      {
        name: 'soak',
        startS: 0,
        durationS: windows * 10,
        warmupS: 0,
        bands: [{ p95Ms: 2500, startS: 0, endS: windows * 10 }],
      },
    ],
    histograms: { overall: { latency: h.encode() }, phases: [{ latency: h.encode() }] },
    timeline: Array.from({ length: windows }, (_, i) => ({
      startS: i * 10,
      offeredRpm: 6,
      sentRpm: 6,
      http504: 0,
      latencyMs: { p50: 100, p95: i === 4321 ? 9999 : 200, p99: 300 },
      sendLagMs: { p50: 1, p99: 2, max: 3 },
      inFlight: { max: 1, mean: 0.1 },
      answers429: { rateLimit: 1, inFlight: 0, other: 0 },
    })),
  } as unknown as Summary;
}

const dataset = (s: Summary, chart: string, label: string): { x: number; y: number | null }[] =>
  ((runCharts(s).find((c) => c.name === chart)!.config as any).data.datasets as any[]).find((d) => d.label === label)
    .data;

describe('the charts', () => {
  it('keep every window of a short run as a point at its middle', () => {
    const p95 = dataset(summary(40), 'latency-over-time', 'p95');
    expect(p95).toHaveLength(40);
    expect(p95[3]).toEqual({ x: 35, y: 200 });
  });

  it("keep a 24-hour run's 8,640 windows to at most two points per group of windows, keeping its spike and its counts", () => {
    const s = summary(8640);
    const p95 = dataset(s, 'latency-over-time', 'p95');
    expect(p95.length).toBeLessThanOrEqual(2 * MAX_GROUPS);
    expect(Math.max(...p95.map((p) => p.y ?? 0))).toBe(9999);
    expect(p95.find((p) => p.y === 9999)!.x).toBe(43215);
    expect(p95.every((p, i) => i === 0 || p.x > p95[i - 1]!.x)).toBe(true);
    const refusals = dataset(s, 'rate-and-refusals', '429: rate limit');
    expect(refusals.length).toBeLessThanOrEqual(MAX_GROUPS);
    expect(refusals.reduce((sum, p) => sum + p.y!, 0)).toBe(8640);
    expect(
      (runCharts(s).find((c) => c.name === 'rate-and-refusals')!.config as any).options.plugins.title.text,
    ).toContain('per 180 s');
  });
});
