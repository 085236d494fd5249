/**
 * The charts as PNG files, drawn by chart.js on @napi-rs/canvas through chartjs-node-canvas (its
 * synchronous renderer: the asynchronous one fails on that canvas; see shared NOTES.md). Loaded only
 * when a report is written: a run does not pay for chart.js before its first request.
 */
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';

import { CHART_HEIGHT, CHART_WIDTH, type ChartSpec } from './chart-config.js';

let renderer: ChartJSNodeCanvas | undefined;

/**
 * A configuration made drawable: `ticks.callbackLabels` (JSON can hold no function) becomes a tick
 * callback that labels those values only.
 */
function drawable(config: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(config) as {
    options?: { scales?: Record<string, { ticks?: Record<string, unknown> }> };
  };
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
