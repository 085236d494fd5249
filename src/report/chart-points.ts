/** A timeline's points for a chart: one per window, or past MAX_GROUPS windows, decimated by group. */
import type { Summary } from '../judge/index.js';
import type { Point } from './chart-config.js';

/**
 * Groups of windows per point: a chart is 1,000 pixels wide, and chart.js keeps an object per point
 * (a 24-hour run's 8,640 windows in five charts took some 100 MB at the end of the run).
 */
export const MAX_GROUPS = 500;
export const windowsPerGroup = (summary: Summary): number =>
  Math.max(1, Math.ceil(summary.timeline.length / MAX_GROUPS));
export const windowSOf = (summary: Summary): number =>
  summary.timeline.length > 1 ? summary.timeline[1]!.startS - summary.timeline[0]!.startS : 10;

/**
 * A line's points at each window's middle; past MAX_GROUPS windows, the lowest and the highest of each
 * group of windows, in time order (min-max decimation: a spike is never averaged away).
 */
export function perWindow(summary: Summary, value: (w: Summary['timeline'][number]) => number | null): Point[] {
  const half = windowSOf(summary) / 2;
  const points = summary.timeline.map((w) => ({ x: w.startS + half, y: value(w) }));
  const group = windowsPerGroup(summary);
  if (group === 1) return points;
  const kept: Point[] = [];
  for (let i = 0; i < points.length; i += group) {
    const slice = points.slice(i, i + group).filter((p) => p.y !== null);
    if (slice.length === 0) {
      kept.push({ x: points[i]!.x, y: null });
      continue;
    }
    const low = slice.reduce((a, b) => (b.y! < a.y! ? b : a));
    const high = slice.reduce((a, b) => (b.y! > a.y! ? b : a));
    kept.push(...(low === high ? [low] : low.x < high.x ? [low, high] : [high, low]));
  }
  return kept;
}

/** A count summed over each group of windows, at the group's middle. */
export function perGroup(summary: Summary, value: (w: Summary['timeline'][number]) => number): Point[] {
  const group = windowsPerGroup(summary);
  const points: Point[] = [];
  for (let i = 0; i < summary.timeline.length; i += group) {
    const slice = summary.timeline.slice(i, i + group);
    points.push({
      x: slice[0]!.startS + (slice.length * windowSOf(summary)) / 2,
      y: slice.reduce((sum, w) => sum + value(w), 0),
    });
  }
  return points;
}
