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
    timeScale: 20,
    startedAt: '2026-11-27T19:05:35.912Z',
    phases: [
      {
        name: 'soak',
        startS: 0,
        durationS: windows * 10,
        warmupS: 0,
        bands: [{ p95Ms: 2500, startS: 0, endS: windows * 10 }],
      },
    ],
    histograms: {
      overall: { latency: h.encode(), steadyLatency: h.encode(), http429Latency: h.encode() },
      phases: [{ latency: h.encode(), steadyLatency: h.encode() }],
    },
    timeline: Array.from({ length: windows }, (_, i) => ({
      startS: i * 10,
      offeredRpm: 6,
      sentRpm: 6,
      http504: 0,
      latencyMs: { p50: 100, p95: i === 4321 ? 9999 : 200, p99: 300 },
      http429LatencyMs: { p50: 4, p95: 6 },
      sendLagMs: { p50: 20, p99: 40, max: 60 },
      inFlight: { max: 1, mean: 0.1 },
      answers429: { rateLimit: 1, inFlight: 0, other: 0 },
    })),
  } as unknown as Summary;
}

const config = (s: Summary, chart: string): any => runCharts(s).find((c) => c.name === chart)!.config as any;
const dataset = (s: Summary, chart: string, label: string): { x: number; y: number | null }[] =>
  (config(s, chart).data.datasets as any[]).find((d) => d.label === label).data;
/** Two phases, the second starting at 200 s. */
const twoPhases = (s: Summary): Summary =>
  ({
    ...s,
    phases: [
      { ...s.phases[0]!, name: 'warmup', durationS: 200 },
      { ...s.phases[0]!, name: 'burst', startS: 200, durationS: 200 },
    ],
    histograms: { ...s.histograms, phases: [s.histograms.phases[0]!, s.histograms.phases[0]!] },
  }) as unknown as Summary;

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

  it('draw the send lag in wall ms, as the text gives it: model ms ÷ k', () => {
    const s = summary(3);
    expect(dataset(s, 'send-lag', 'p99')[0]!.y).toBe(2);
    expect(dataset(s, 'send-lag', 'max')[0]!.y).toBe(3);
    const c = runCharts(s).find((x) => x.name === 'send-lag')!;
    expect(c.title).toContain('wall ms');
    expect(config(s, 'send-lag').options.scales.y.title.text).toContain('wall');
  });

  it("name the latency's definition in their titles and draw the 429s' own round trips as a series apart", () => {
    const s = summary(3);
    for (const name of ['latency-over-time', 'latency-distribution'])
      expect(runCharts(s).find((c) => c.name === name)!.title).toMatch(/429s answered at once left out.*model/);
    expect(dataset(s, 'latency-over-time', "429 answers' own round trip, p50")[0]!.y).toBe(4);
    expect(dataset(s, 'latency-over-time', 'p50')[0]!.y).toBe(100);
    expect(dataset(s, 'latency-distribution', "429 answers' own round trips")).not.toHaveLength(0);
  });

  it('draw the latency distribution of the steady state, as the tables show it, and say so in title and legend', () => {
    const s = summary(3);
    // Warm-up included, every request takes 1 s; in the steady state, 10 ms to 1 s (what the tables show).
    const all = MsHistogram.create();
    for (let i = 1; i <= 100; i++) all.recordMs(1000);
    const withSteady = {
      ...s,
      histograms: {
        overall: { ...s.histograms.overall, latency: all.encode(), steadyLatency: s.histograms.overall.latency },
        phases: [{ latency: all.encode(), steadyLatency: s.histograms.phases[0]!.latency }],
      },
    } as unknown as Summary;
    const c = runCharts(withSteady).find((x) => x.name === 'latency-distribution')!;
    expect(c.title).toMatch(/steady state/);
    const at = (label: string, p: number): number | null | undefined =>
      dataset(withSteady, 'latency-distribution', label).find((pt) => Math.abs(pt.x - 1 / (1 - p)) < 1e-9)?.y;
    expect(at('phase soak, steady state', 0.5)).toBeCloseTo(500, 0);
    expect(at('every phase, steady state', 0.95)).toBeCloseTo(950, 0);
  });

  it('draw the send lag max over its p99, so that both show where they meet', () => {
    const datasets = config(summary(3), 'send-lag').data.datasets as any[];
    const max = datasets.find((d) => d.label === 'max');
    const p99 = datasets.find((d) => d.label === 'p99');
    // chart.js draws the lowest order last (on top); the dashed max over a wider solid p99 leaves both visible.
    expect(max.order ?? 0).toBeLessThan(p99.order ?? 0);
    expect(max.borderDash).toBeDefined();
    expect(p99.borderWidth).toBeGreaterThan(max.borderWidth);
  });

  it('show dashed series as lines in their legends, not as blobs', () => {
    for (const c of runCharts(summary(3))) {
      const options = (c.config as any).options;
      expect(options.plugins.legend.labels.usePointStyle, c.name).toBe(true);
      for (const d of (c.config as any).data.datasets as any[])
        if (d.type === 'line' && (d.pointRadius ?? 0) === 0) expect(d.pointStyle, `${c.name}: ${d.label}`).toBe('line');
    }
  });

  it('label the time axes in model time with the UTC start, and mark where each phase starts', () => {
    const s = twoPhases(summary(40));
    for (const c of runCharts(s).filter((x) => x.name !== 'latency-distribution' && x.name !== 'latency-vs-rate')) {
      const options = (c.config as any).options;
      expect(options.scales.x.title.text, c.name).toMatch(/model time/);
      const subtitle = (options.plugins.subtitle.text as string[]).join('\n');
      expect(subtitle, c.name).toContain('2026-11-27 19:05:35 UTC');
      expect(subtitle, c.name).toMatch(/warmup 0 s · burst 200 s/);
      const starts = ((c.config as any).data.datasets as any[]).find((d) => d.label.startsWith('phase start'));
      expect(starts?.data.filter((p: any) => p.y !== null).map((p: any) => p.x)).toEqual([200, 200]);
    }
  });
});
