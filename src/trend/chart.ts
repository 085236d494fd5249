/**
 * A scenario's trend as one chart.js configuration: four panels stacked on one axis of runs (by start): p95 against
 * its target, goodput, 429 % and error %, one colour per phase. A run compare would flag is a red triangle on the
 * panel of the figure that rose.
 */
import { plural, type TrendSection, utcStart } from './content.js';
import { errorPercent, percentOf, type PhaseFigures } from './series.js';
import { stoppedEarly } from './stopped-early.js';

export const TREND_WIDTH = 1000;
export const TREND_HEIGHT = 1200;

/** One distinct colour per phase drawn (none of them the flag's red). */
const PHASE_COLOURS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#393b79',
  '#637939',
  '#7f7f7f',
  '#7b4173',
];
/** More phases than colours would fill the chart with its legend; the table lists them all. */
const MAX_PHASES_DRAWN = PHASE_COLOURS.length;
const FLAG_COLOUR = '#d62728';

interface Panel {
  readonly axis: string;
  readonly title: string;
  readonly value: (p: PhaseFigures) => number | null;
  /** The findings' figures this panel shows. */
  readonly figures: readonly string[];
}

const seconds = (ms: number | null): number | null => (ms === null ? null : ms / 1000);

const PANELS: readonly Panel[] = [
  { axis: 'p95', title: 'p95 (s, model time)', value: (p) => seconds(p.p95Ms), figures: ['p95'] },
  { axis: 'goodput', title: 'goodput (2xx/min, model)', value: (p) => p.goodputRpm, figures: [] },
  { axis: 'r429', title: '429 (% of sent)', value: (p) => percentOf(p.http429, p.sent), figures: ['http429'] },
  { axis: 'errors', title: 'errors (% of sent)', value: errorPercent, figures: ['http504', 'errors'] },
];

/** "#3" over "11-27 19:06:02": the run's number and its start (UTC); "(stopped)" under a run stopped early. */
function runTicks(section: TrendSection): string[][] {
  return section.trend.runs.map((r, i) => [
    `${section.flags[i]!.flagged ? '⚑ ' : ''}#${i + 1}`,
    utcStart(r.summary.startedAt).slice(5),
    ...(stoppedEarly(r.summary) === null ? [] : ['(stopped early)']),
  ]);
}

function flaggedAt(section: TrendSection, run: number, phase: string, panel: Panel): boolean {
  return section.flags[run]!.findings.some(
    (f) => f.kind === 'regression' && f.phase === phase && panel.figures.includes(f.figure),
  );
}

function phaseDatasets(section: TrendSection, phase: string, colour: string): Record<string, unknown>[] {
  const { runs } = section.trend;
  const figuresOf = (i: number): PhaseFigures | undefined => runs[i]!.phases.find((p) => p.name === phase);
  const sets: Record<string, unknown>[] = PANELS.map((panel, k) => {
    const flagged = runs.map((_, i) => flaggedAt(section, i, phase, panel));
    return {
      label: k === 0 ? phase : `${phase} (${panel.axis})`,
      yAxisID: panel.axis,
      data: runs.map((_, i) => {
        const f = figuresOf(i);
        return f === undefined ? null : panel.value(f);
      }),
      borderColor: colour,
      backgroundColor: colour,
      pointStyle: flagged.map((x) => (x ? 'triangle' : 'circle')),
      pointRadius: flagged.map((x) => (x ? 9 : 3)),
      pointBackgroundColor: flagged.map((x) => (x ? FLAG_COLOUR : colour)),
      pointBorderColor: flagged.map((x) => (x ? FLAG_COLOUR : colour)),
      borderWidth: 2,
      spanGaps: false,
    };
  });
  const targets = runs.map((_, i) => seconds(figuresOf(i)?.targetMs ?? null));
  if (targets.some((t) => t !== null))
    sets.push({
      label: `${phase} target`,
      yAxisID: 'p95',
      data: targets,
      borderColor: colour,
      borderDash: [6, 4],
      borderWidth: 1.5,
      pointRadius: 0,
      fill: false,
    });
  return sets;
}

function scales(): Record<string, unknown> {
  const entries = PANELS.map((panel) => [
    panel.axis,
    {
      type: 'linear',
      position: 'left',
      stack: 'panels',
      stackWeight: 1,
      offset: true,
      beginAtZero: true,
      title: { display: true, text: panel.title },
      border: { color: '#444' },
    },
  ]);
  return {
    x: { type: 'category', title: { display: true, text: 'runs, by start (UTC)' } },
    // chart.js stacks the axes from the bottom up: the p95 panel on top.
    ...Object.fromEntries(entries.reverse()),
  };
}

export function trendChart(section: TrendSection): Record<string, unknown> {
  const { trend } = section;
  const drawn = trend.phaseNames.slice(0, MAX_PHASES_DRAWN);
  const datasets = drawn.flatMap((phase, i) => phaseDatasets(section, phase, PHASE_COLOURS[i]!));
  const cut =
    drawn.length < trend.phaseNames.length
      ? [`the first ${drawn.length} of ${trend.phaseNames.length} phases drawn; the table lists them all`]
      : [];
  return {
    type: 'line',
    data: { labels: runTicks(section), datasets },
    options: {
      animation: false,
      responsive: false,
      scales: scales(),
      plugins: {
        title: {
          display: true,
          text: [
            `${trend.scenario}: per phase across ${plural(trend.runs.length, 'run')}`,
            'p95 steady state, 429s answered at once left out (dashed: its target) · red triangle ⚑: flagged as compare would',
            ...cut,
          ],
        },
        // One entry per phase (its colour is the same in every panel).
        legend: { labels: { filter: (item: { text: string }) => drawn.includes(item.text) } },
      },
    },
  };
}
