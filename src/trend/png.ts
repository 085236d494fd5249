/**
 * A trend chart as a PNG, drawn by chart.js on the canvas chartjs-node-canvas brings (its synchronous renderer, as
 * src/report/png.ts does). Loaded only when a trend is written.
 */
import { ChartJSNodeCanvas } from 'chartjs-node-canvas';

import { TREND_HEIGHT, TREND_WIDTH } from './chart.js';

let renderer: ChartJSNodeCanvas | undefined;

export function renderTrendPng(config: Record<string, unknown>): Buffer {
  renderer ??= new ChartJSNodeCanvas({ width: TREND_WIDTH, height: TREND_HEIGHT, backgroundColour: 'white' });
  return renderer.renderToBufferSync(config as never, 'image/png');
}
