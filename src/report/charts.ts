/**
 * The run's charts as chart.js configurations, built from summary.json alone: the PNGs
 * (src/report/png.ts) and report.html draw the same ones. Time runs along x in model seconds from the
 * run start, with the UTC start and the phases' starts (chart-time.ts); every axis says its unit and whether
 * it is model or wall time, every series has a legend entry. Latency is summary.latencyDefinition's.
 */
import { TimeScale } from '../core/index.js';
import type { Summary } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';
import { capacityOf } from './capacity.js';
import { goodputVsOffered, latencyVsRate } from './capacity-charts.js';
import { axis, chart, type ChartSpec, COLOURS, line, numberOrNull, type Point, timeAxis } from './chart-config.js';
import { perGroup, perWindow, windowSOf, windowsPerGroup } from './chart-points.js';
import { timeChart } from './chart-time.js';

/** The latency's definition as the charts' titles say it (the tables' headers say the same). */
const LATENCY_WORDS = 'intended send → answer, 429s answered at once left out, model time';
/** Where a 429's own round trip is drawn: apart from the latency, which leaves it out. */
const HTTP429_LABEL = "429 answers' own round trip";

/** p50, p95, p99 per window, and each band's p95 target over the steady time it judges. */
function latencyOverTime(summary: Summary): ChartSpec {
  const target: Point[] = [];
  for (const p of summary.phases) {
    for (const b of p.bands) {
      if (b.p95Ms === null) continue;
      const from = Math.max(b.startS, p.startS + p.warmupS);
      if (b.endS <= from) continue;
      // A gap (null) between bands, so that the line does not join two targets.
      target.push({ x: from, y: b.p95Ms }, { x: b.endS, y: b.p95Ms }, { x: b.endS, y: null });
    }
  }
  return timeChart(
    summary,
    'latency-over-time',
    `Latency per window (${LATENCY_WORDS})`,
    [
      line(
        'p50',
        perWindow(summary, (w) => numberOrNull(w.latencyMs.p50)),
        COLOURS.p50,
      ),
      line(
        'p95',
        perWindow(summary, (w) => numberOrNull(w.latencyMs.p95)),
        COLOURS.p95,
      ),
      line(
        'p99',
        perWindow(summary, (w) => numberOrNull(w.latencyMs.p99)),
        COLOURS.p99,
      ),
      line("p95 target (the spec's band, steady state)", target, COLOURS.target, { borderDash: [8, 4] }),
      line(
        `${HTTP429_LABEL}, p50`,
        perWindow(summary, (w) => numberOrNull(w.http429LatencyMs.p50)),
        COLOURS.rate429,
        { borderDash: [2, 3], borderWidth: 1.5 },
      ),
    ],
    { x: timeAxis, y: axis('latency (ms, model time)', { min: 0 }) },
  );
}

/** Offered and sent rate, with 429s by kind and 504s per window stacked beneath. */
function rateAndRefusals(summary: Summary): ChartSpec {
  const barS = windowSOf(summary) * windowsPerGroup(summary);
  const bar = (
    label: string,
    value: (w: Summary['timeline'][number]) => number,
    colour: string,
  ): Record<string, unknown> => ({
    type: 'bar',
    label,
    data: perGroup(summary, value),
    backgroundColor: colour,
    pointStyle: 'rect',
    yAxisID: 'answers',
    stack: 'answers',
    barPercentage: 1,
    categoryPercentage: 1,
  });
  return timeChart(
    summary,
    'rate-and-refusals',
    `Offered and sent rate; 429 and 504 answers per ${barS} s`,
    [
      line(
        'offered (requests/min)',
        perWindow(summary, (w) => w.offeredRpm),
        COLOURS.offered,
        { borderDash: [6, 3], yAxisID: 'rate' },
      ),
      line(
        'sent (requests/min)',
        perWindow(summary, (w) => w.sentRpm),
        COLOURS.sent,
        { yAxisID: 'rate' },
      ),
      bar('429: rate limit', (w) => w.answers429.rateLimit, COLOURS.rate429),
      bar('429: in flight', (w) => w.answers429.inFlight, COLOURS.flight429),
      bar('429: other', (w) => w.answers429.other, COLOURS.other429),
      bar('504', (w) => w.http504, COLOURS.http504),
    ],
    // Two panels on one x axis: the rates above, the refusals beneath (chart.js stacks the y scales, the first from the
    // bottom).
    {
      x: { ...timeAxis, stacked: true },
      answers: axis('answers (count)', {
        position: 'left',
        min: 0,
        stacked: true,
        stack: 'panels',
        stackWeight: 1,
        offset: true,
        ticks: { precision: 0 },
      }),
      rate: axis('rate (requests/min)', { position: 'left', min: 0, stack: 'panels', stackWeight: 2, offset: true }),
    },
  );
}

/** Percentiles plotted as HdrHistogram's plotter does: x = 1 / (1 − p) on a log scale, so the tail gets room. */
const PERCENTILES = [
  0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 96, 97, 97.5, 98, 98.5, 99, 99.25, 99.5, 99.75, 99.9, 99.95,
  99.99, 100,
];

function latencyDistribution(summary: Summary): ChartSpec {
  const curve = (encoded: string): Point[] => {
    const h = MsHistogram.decode(encoded);
    if (h.count === 0) return [];
    // The last point sits one step past 99.99 % (the maximum has no finite 1 / (1 − p)).
    return PERCENTILES.map((p) => ({
      x: p === 100 ? 100_000 : 1 / (1 - p / 100),
      y: p === 0 ? h.rankMs(1) : h.percentileMs(p),
    }));
  };
  const palette = [
    '#1f77b4',
    '#ff7f0e',
    '#2ca02c',
    '#d62728',
    '#9467bd',
    '#8c564b',
    '#e377c2',
    '#7f7f7f',
    '#bcbd22',
    '#17becf',
  ];
  const datasets = [
    // The steady state, as every table shows it: a warm-up's slow start would make the chart disagree with them.
    line('every phase, steady state', curve(summary.histograms.overall.steadyLatency), '#000000', { borderWidth: 3 }),
    line(`${HTTP429_LABEL}s`, curve(summary.histograms.overall.http429Latency), COLOURS.rate429, {
      borderWidth: 1.5,
      borderDash: [2, 3],
    }),
    ...summary.phases.slice(0, palette.length).map((p, i) =>
      line(`phase ${p.name}, steady state`, curve(summary.histograms.phases[i]!.steadyLatency), palette[i]!, {
        borderWidth: 1.5,
      }),
    ),
  ];
  const tickLabels: Record<string, string> = {
    1: '0 %',
    10: '90 %',
    100: '99 %',
    1000: '99.9 %',
    10000: '99.99 %',
    100000: 'max',
  };
  return chart('latency-distribution', `Latency by percentile, steady state (${LATENCY_WORDS})`, datasets, {
    x: axis('percentile (log scale of 1 / (1 − p))', {
      type: 'logarithmic',
      min: 1,
      max: 100_000,
      ticks: { callbackLabels: tickLabels },
    }),
    y: axis('latency (ms, model time)', { min: 0 }),
  });
}

function inFlightOverTime(summary: Summary): ChartSpec {
  return timeChart(
    summary,
    'in-flight',
    'Requests in flight (sent, not yet answered or given up)',
    [
      line(
        'most at once in the window',
        perWindow(summary, (w) => w.inFlight.max),
        COLOURS.max,
        { stepped: 'middle' },
      ),
      line(
        'mean over the window',
        perWindow(summary, (w) => w.inFlight.mean),
        COLOURS.mean,
      ),
    ],
    { x: timeAxis, y: axis('requests in flight (count)', { min: 0, ticks: { precision: 0 } }) },
  );
}

/** In wall ms, as the terminal and the report say it: the generator's lateness is a wall-clock matter. */
function sendLagOverTime(summary: Summary): ChartSpec {
  const scale = TimeScale.of(summary.timeScale, "the summary's timeScale");
  const wall = (v: unknown): number | null => {
    const ms = numberOrNull(v);
    return ms === null ? null : scale.toWallMs(ms);
  };
  return timeChart(
    summary,
    'send-lag',
    'Send lag: how late the generator put each request on the wire (wall ms)',
    [
      line(
        'p50',
        perWindow(summary, (w) => wall(w.sendLagMs.p50)),
        COLOURS.p50,
      ),
      // Where max and p99 meet (few requests a window), the dashed max is drawn on top of a wider p99: both show.
      line(
        'p99',
        perWindow(summary, (w) => wall(w.sendLagMs.p99)),
        COLOURS.p99,
        { borderWidth: 4 },
      ),
      line(
        'max',
        perWindow(summary, (w) => wall(w.sendLagMs.max)),
        COLOURS.max,
        { borderDash: [6, 4], borderWidth: 1.5, order: -1 },
      ),
    ],
    { x: timeAxis, y: axis('send lag (ms, wall time)', { min: 0 }) },
  );
}

/**
 * Every chart of a run, in the order the reports show them; a run that steps the rate up gets its latency and its
 * goodput against the offered rate.
 */
export function runCharts(summary: Summary): ChartSpec[] {
  const capacity = capacityOf(summary);
  return [
    latencyOverTime(summary),
    rateAndRefusals(summary),
    latencyDistribution(summary),
    inFlightOverTime(summary),
    sendLagOverTime(summary),
    ...(capacity === undefined ? [] : [latencyVsRate(summary, capacity), goodputVsOffered(summary)]),
  ];
}
