/**
 * The charts as PNG files, drawn by chart.js on @napi-rs/canvas through chartjs-node-canvas (its
 * synchronous renderer: the asynchronous one fails on that canvas; see shared NOTES.md). Loaded only
 * when a report is written: a run does not pay for chart.js before its first request.
 */
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';

import { CHART_HEIGHT, CHART_WIDTH, type ChartSpec } from './chart-config.js';

let renderer: ChartJSNodeCanvas | undefined;

type LegendItem = { datasetIndex: number } & Record<string, unknown>;
interface LegendChart {
  readonly constructor: {
    readonly defaults: { plugins: { legend: { labels: { generateLabels(chart: unknown): LegendItem[] } } } };
  };
  readonly data: { readonly datasets: readonly Record<string, unknown>[] };
}

/**
 * Legend entries drawn as their series are: chart.js takes a point-style entry's dash from the point, which has none,
 * so a dashed line's entry would be solid. (report.html's page script does the same.)
 */
function lineLegendLabels(chart: LegendChart): LegendItem[] {
  return chart.constructor.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
    const d = chart.data.datasets[item.datasetIndex]!;
    if (d.type === 'bar') return { ...item, pointStyle: 'rect' };
    return d.pointStyle === 'line' ? { ...item, lineDash: d.borderDash ?? [], lineWidth: d.borderWidth ?? 2 } : item;
  });
}

/**
 * A configuration made drawable: `ticks.callbackLabels` (JSON can hold no function) becomes a tick
 * callback that labels those values only; legend entries are drawn as lines (lineLegendLabels).
 */
function drawable(config: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(config) as {
    options?: {
      scales?: Record<string, { ticks?: Record<string, unknown> }>;
      plugins?: { legend?: { labels?: Record<string, unknown> } };
    };
  };
  const legendLabels = copy.options?.plugins?.legend?.labels;
  if (legendLabels?.usePointStyle === true) legendLabels.generateLabels = lineLegendLabels;
  for (const scale of Object.values(copy.options?.scales ?? {})) {
    const labels = scale.ticks?.callbackLabels as Record<string, string> | undefined;
    if (labels === undefined) continue;
    delete scale.ticks!.callbackLabels;
    scale.ticks!.autoSkip = false;
    scale.ticks!.callback = (value: number | string) => labels[String(value)] ?? '';
  }
  return copy as Record<string, unknown>;
}

/** One chart as a PNG. */
export function renderPng(chart: ChartSpec): Buffer {
  renderer ??= new ChartJSNodeCanvas({ width: CHART_WIDTH, height: CHART_HEIGHT, backgroundColour: 'white' });
  return renderer.renderToBufferSync(drawable(chart.config) as never, 'image/png');
}
