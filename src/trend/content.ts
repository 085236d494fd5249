/**
 * What a trend says, once, as plain text for its two renderers (trend.md, trend.html): per scenario, one row per run
 * and phase (run, start, verdict, then the phase's p95 against its target, goodput, 429 % and error %), the flagged
 * runs marked, and what compare finds against which run.
 */
import { echoValue, formatMs } from '../core/index.js';
import type { RunFlag } from './flags.js';
import { errorPercent, percentOf, type PhaseFigures, type ScenarioTrend, type TrendPoint } from './series.js';
import { stoppedEarly } from './stopped-early.js';

export interface TrendSection {
  readonly trend: ScenarioTrend;
  readonly flags: readonly RunFlag[];
  /** The chart's file name, beside trend.md. */
  readonly pngFile: string;
  /** Its runs were compared with the baseline given (one of its scenario), not with its first run. */
  readonly baselineUsed: boolean;
}

interface TrendRow {
  readonly flagged: boolean;
  readonly cells: readonly string[];
}

export interface SectionContent {
  readonly scenario: string;
  readonly lead: string;
  readonly pngFile: string;
  readonly header: readonly string[];
  readonly rows: readonly TrendRow[];
  readonly findings: readonly string[];
}

export interface TrendContent {
  readonly definitions: string;
  readonly sections: readonly SectionContent[];
  readonly skipped: readonly string[];
}

const HEADER = [
  'run',
  'start (UTC)',
  'verdict',
  'phase',
  'p95 (target), model time',
  'goodput (rpm)',
  '429 %',
  'error %',
  'flag',
];

const pct = (v: number | null): string => (v === null ? '—' : `${v.toFixed(2)} %`);
const rpm = (v: number | null): string => (v === null ? '—' : v.toFixed(1));

function p95Cell(p: PhaseFigures): string {
  const value = p.p95Unanswered ? 'unanswered' : p.p95Ms === null ? '—' : formatMs(p.p95Ms);
  return p.targetMs === null ? value : `${value} (< ${formatMs(p.targetMs)})`;
}

/**
 * "#3 20261127T190602Z-compared": the run's number in its scenario, and its folder's name (someone else's: line
 * breaks and invisible characters escaped).
 */
const runLabel = (runs: readonly TrendPoint[], run: TrendPoint): string =>
  `#${runs.indexOf(run) + 1} ${echoValue(run.dir.split(/[\\/]/).filter(Boolean).at(-1) ?? run.dir)}`;

/** "2026-11-20 10:00:00": a start written with any offset, in UTC as the column says. */
export const utcStart = (startedAt: string): string =>
  new Date(Date.parse(startedAt)).toISOString().slice(0, 19).replace('T', ' ');

/** "1 run", "2 runs". */
export const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** "PASS", or "PASS, stopped early (interrupted)". */
function verdictCell(run: TrendPoint): string {
  const stopped = stoppedEarly(run.summary);
  const status = run.summary.verdict.status.toUpperCase();
  return stopped === null ? status : `${status}, ${stopped}: not compared`;
}

/** The reference as the table names it: its number, or "the baseline" when it is not among the runs. */
const referenceLabel = (runs: readonly TrendPoint[], reference: TrendPoint): string =>
  runs.includes(reference) ? runLabel(runs, reference) : `the baseline ${reference.dir}`;

const FIGURE_WORDS: Record<string, string> = { p95: 'p95', http429: '429s', http504: '504s', errors: 'failures' };

/** The reference, a run not compared with it (once, on its first row), or what rose against it. */
function flagCell(flag: RunFlag, runs: readonly TrendPoint[], phase: string, firstRow: boolean): string {
  if (flag.notCompared !== null) return firstRow ? `not compared: ${flag.notCompared}` : '';
  if (flag.against === null) return firstRow ? 'reference' : '';
  const here = flag.findings.filter((f) => f.phase === phase && f.kind === 'regression');
  if (here.length === 0) return '';
  const figures = [...new Set(here.map((f) => FIGURE_WORDS[f.figure]))];
  const against = runs.includes(flag.against) ? `#${runs.indexOf(flag.against) + 1}` : 'the baseline';
  return `⚑ ${figures.join(', ')} up against ${against}`;
}

function rows(section: TrendSection): TrendRow[] {
  const { runs } = section.trend;
  return runs.flatMap((run, i) => {
    const flag = section.flags[i]!;
    return run.phases.map((p, j) => ({
      flagged: flag.flagged,
      cells: [
        j === 0 ? `${flag.flagged ? '⚑ ' : ''}${runLabel(runs, run)}` : '',
        j === 0 ? utcStart(run.summary.startedAt) : '',
        j === 0 ? verdictCell(run) : '',
        p.name,
        p95Cell(p),
        rpm(p.goodputRpm),
        pct(percentOf(p.http429, p.sent)),
        pct(errorPercent(p)),
        flagCell(flag, runs, p.name, j === 0),
      ],
    }));
  });
}

function findings(section: TrendSection): string[] {
  const { runs } = section.trend;
  return section.flags.flatMap((flag, i) => {
    if (flag.against === null) return [];
    const head = `${runLabel(runs, runs[i]!)} against ${referenceLabel(runs, flag.against)}`;
    return [
      ...flag.findings.map((f) => `${head}: ${f.kind}, ${f.phase}: ${f.text}`),
      ...flag.notes.map((n) => `${head}: note: ${n}`),
    ];
  });
}

function sectionContent(section: TrendSection, baseline: string | null): SectionContent {
  const { runs } = section.trend;
  const flagged = section.flags.filter((f) => f.flagged).length;
  const notCompared = section.flags.filter((f) => f.notCompared !== null).length;
  // The reference is the first run that ran its whole plan (a run stopped early is never compared).
  const first = runs.find((r) => stoppedEarly(r.summary) === null);
  const reference = section.baselineUsed
    ? `the baseline ${echoValue(baseline ?? '')}`
    : first === undefined
      ? 'no run (every one stopped early)'
      : `${first === runs[0] ? 'the first run' : 'the first run that ran its whole plan'}, ${runLabel(runs, first)}`;
  const unlike =
    notCompared === 0 ? '' : `; ${notCompared} not compared (another plan, environment, mock profile or time scale)`;
  const stopped = runs.filter((r) => stoppedEarly(r.summary) !== null).length;
  const stoppedText = stopped === 0 ? '' : ` ${plural(stopped, 'run')} stopped early, shown but not compared.`;
  return {
    scenario: section.trend.scenario,
    lead: `${plural(runs.length, 'run')}, by start; each compared with one reference, ${reference}, as loadproof compare would: ${flagged === 0 ? 'none flagged' : `${flagged} flagged (⚑)`}${unlike}.${stoppedText}`,
    pngFile: section.pngFile,
    header: HEADER,
    rows: rows(section),
    findings: findings(section),
  };
}

export function trendContent(
  sections: readonly TrendSection[],
  skipped: readonly { dir: string; reason: string }[],
  options: { readonly baseline: string | null; readonly tolerance: number },
): TrendContent {
  return {
    definitions: `p95: steady state (after warm-up), 429s answered at once left out, model time, against the phase's documented target. Goodput: requests answered 2xx a model minute. 429 % and error % (504s and every other failure): of the requests sent. A run is flagged (⚑) when loadproof compare would call it a regression: its p95 interval above the reference's by more than ${Math.round(options.tolerance * 100)} %, or a 429, 504 or failure rate higher than chance explains (Fisher's exact test, Holm's correction). Every run is compared with one reference (the scenario's first run, or the baseline given), one comparison a run as one compare is: a flag says "this run is clearly worse than the reference", and stays on every later run as long as the change lasts. A run with another plan, environment, mock profile or time scale than the reference is not compared (it measures another test, not the service).`,
    sections: sections.map((s) => sectionContent(s, options.baseline)),
    skipped: skipped.map((s) => `${echoValue(s.dir)}: ${s.reason}`),
  };
}
