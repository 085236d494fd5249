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

const FIGURE_WORDS: Record<string, string> = { p95: 'p95', http429: '429s', http504: '504s', errors: 'failures' };

function flagCell(flag: RunFlag, runs: readonly TrendPoint[], phase: string): string {
  const here = flag.findings.filter((f) => f.phase === phase && f.kind === 'regression');
  if (here.length === 0) return '';
  const figures = [...new Set(here.map((f) => FIGURE_WORDS[f.figure]))];
  return `⚑ ${figures.join(', ')} up against #${runs.indexOf(flag.against!) + 1}`;
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
        flagCell(flag, runs, p.name),
      ],
    }));
  });
}

function findings(section: TrendSection): string[] {
  const { runs } = section.trend;
  return section.flags.flatMap((flag, i) => {
    if (flag.against === null) return [];
    const head = `${runLabel(runs, runs[i]!)} against ${runLabel(runs, flag.against)}`;
    return [
      ...flag.findings.map((f) => `${head}: ${f.kind}, ${f.phase}: ${f.text}`),
      ...flag.notes.map((n) => `${head}: note: ${n}`),
    ];
  });
}

function sectionContent(section: TrendSection, baseline: string | null): SectionContent {
  const flagged = section.flags.filter((f) => f.flagged).length;
  const { runs } = section.trend;
  const against = baseline === null ? 'the run before it' : `the baseline ${echoValue(baseline)}`;
  const stopped = runs.filter((r) => stoppedEarly(r.summary) !== null).length;
  const notCompared = stopped === 0 ? '' : ` ${plural(stopped, 'run')} stopped early, shown but not compared.`;
  return {
    scenario: section.trend.scenario,
    lead: `${plural(runs.length, 'run')}, by start; each compared with ${against} as loadproof compare would: ${flagged === 0 ? 'none flagged' : `${flagged} flagged (⚑)`}.${notCompared}`,
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
    definitions: `p95: steady state (after warm-up), answers other than 429, model time, against the phase's documented target. Goodput: requests answered 2xx a model minute. 429 % and error % (504s and every other failure): of the requests sent. A run is flagged (⚑) when loadproof compare would call it a regression: its p95 interval above the other's by more than ${Math.round(options.tolerance * 100)} %, or a 429, 504 or failure rate higher than chance explains (Fisher's exact test, Holm's correction).`,
    sections: sections.map((s) => sectionContent(s, options.baseline)),
    skipped: skipped.map((s) => `${echoValue(s.dir)}: ${s.reason}`),
  };
}
