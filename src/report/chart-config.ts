/** The pieces of a chart.js configuration as plain data: its size, colours, axes, lines and the chart itself. */

/** Pixels: readable at the width a Markdown viewer or a ticket embeds an image (about 1,000). */
export const CHART_WIDTH = 1000;
export const CHART_HEIGHT = 460;

/** A chart.js configuration, as plain data (JSON-safe: report.html inlines it). */
export interface ChartSpec {
  /** File name under charts/ (without .png) and the chart's id. */
  readonly name: string;
  readonly title: string;
  readonly config: Record<string, unknown>;
}

export const COLOURS = {
  p50: '#1f77b4',
  p95: '#d62728',
  p99: '#9467bd',
  target: '#2ca02c',
  offered: '#7f7f7f',
  sent: '#1f77b4',
  rate429: '#ff7f0e',
  flight429: '#e377c2',
  other429: '#bcbd22',
  http504: '#8c564b',
  max: '#d62728',
  mean: '#1f77b4',
};

export type Point = { x: number; y: number | null };

export const axis = (text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  title: { display: true, text },
  ...extra,
});
export const timeAxis = axis('time since the run start (s, model time)', { type: 'linear', min: 0 });
export const line = (
  label: string,
  data: Point[],
  colour: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  type: 'line',
  label,
  data,
  borderColor: colour,
  backgroundColor: colour,
  borderWidth: 2,
  pointRadius: 0,
  spanGaps: false,
  // The legend draws the line itself, dashes included (a series drawn with markers keeps a marker).
  pointStyle: typeof extra.pointRadius === 'number' && extra.pointRadius > 0 ? 'circle' : 'line',
  ...extra,
});
export const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function chart(
  name: string,
  title: string,
  datasets: Record<string, unknown>[],
  scales: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  subtitle: readonly string[] = [],
): ChartSpec {
  return {
    name,
    title,
    config: {
      type: 'line',
      data: { datasets },
      options: {
        animation: false,
        responsive: false,
        parsing: true,
        plugins: {
          title: { display: true, text: title, font: { size: 16 } },
          subtitle: { display: subtitle.length > 0, text: [...subtitle], font: { size: 12 } },
          // Each entry as its series is drawn: a line (dashed when the series is), a box for bars.
          legend: { position: 'bottom', labels: { usePointStyle: true, pointStyleWidth: 36 } },
        },
        scales,
        ...extra,
      },
    },
  };
}
