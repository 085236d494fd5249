/**
 * What a chart over the run's time says about that time: when the run started (UTC), that x is model time, and where
 * each phase starts (a grey line from the bottom to the top, on an axis of its own that is not drawn).
 */
import type { Summary } from '../judge/index.js';
import { axis, chart, type ChartSpec, line, type Point } from './chart-config.js';

/** Past this many phases the subtitle lists the first ones and says how many more: it must fit the chart. */
const NAMED_PHASES = 10;
const PER_LINE = 5;
const PHASE_LINE = '#b0b0b0';

const utc = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** The subtitle's lines: the start in UTC and the scale, then each phase's start. */
function timeSubtitle(summary: Summary): string[] {
  const k = summary.timeScale;
  const scale = k > 1 ? `; the run went ${k}× faster than model time against the mock` : '';
  const phases = summary.phases.slice(0, NAMED_PHASES).map((p) => `${p.name} ${p.startS} s`);
  if (summary.phases.length > NAMED_PHASES) phases.push(`and ${summary.phases.length - NAMED_PHASES} more`);
  const lines = [`Started ${utc(summary.startedAt)}; x: model seconds since the start${scale}`];
  // A line of the subtitle holds about 130 characters at the chart's width: phases go PER_LINE to a line.
  for (let i = 0; i < phases.length; i += PER_LINE)
    lines.push(
      `${i === 0 ? 'Phases (grey lines where each starts): ' : ''}${phases.slice(i, i + PER_LINE).join(' · ')}`,
    );
  return lines;
}

/** A vertical line at each phase's start after the first, on the hidden `phases` axis (0 to 1: bottom to top). */
function phaseStarts(summary: Summary): Record<string, unknown> {
  const points: Point[] = summary.phases
    .filter((p) => p.startS > 0)
    .flatMap((p) => [
      { x: p.startS, y: 0 },
      { x: p.startS, y: 1 },
      { x: p.startS, y: null },
    ]);
  return line('phase starts', points, PHASE_LINE, { borderWidth: 1, borderDash: [2, 2], yAxisID: 'phases' });
}

/** A chart whose x is the run's time: the subtitle and the phases' starts added to what `chart` makes. */
export function timeChart(
  summary: Summary,
  name: string,
  title: string,
  datasets: Record<string, unknown>[],
  scales: Record<string, unknown>,
): ChartSpec {
  return chart(
    name,
    title,
    [...datasets, phaseStarts(summary)],
    { ...scales, phases: axis('phases', { display: false, min: 0, max: 1 }) },
    {},
    timeSubtitle(summary),
  );
}
