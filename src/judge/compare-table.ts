/** A comparison as text: the terminal's table and findings, and the section report.md and report.html carry. */
import { formatMs, formatTable } from '../core/index.js';
import type { Comparison, Finding, RateFigure, SideFigures } from './comparison.js';

const ms = (v: number | null): string => (v === null ? '—' : formatMs(v));
const change = (base: number | null, run: number | null): string =>
  base === null || run === null || base === 0
    ? ''
    : ` (${run >= base ? '+' : ''}${(((run - base) / base) * 100).toFixed(1)} %)`;
const interval = (s: SideFigures): string =>
  s.p95Interval === null ? '' : ` [${ms(s.p95Interval[0])}–${ms(s.p95Interval[1])}]`;
const rate = (r: RateFigure): string => (r.of === 0 ? '—' : `${((100 * r.count) / r.of).toFixed(2)} %`);

/** The comparison's rows: phase, p50, p95 with its interval, p99, then the three rates, each baseline → run. */
export function comparisonRows(c: Comparison): string[][] {
  return [
    ['phase', 'p50', 'p95 [95 % interval]', 'p99', '429 rate', '504 rate', 'other failures'],
    ...c.phases.map((p) => [
      p.phase,
      `${ms(p.baseline.p50Ms)} → ${ms(p.run.p50Ms)}${change(p.baseline.p50Ms, p.run.p50Ms)}`,
      `${ms(p.baseline.p95Ms)}${interval(p.baseline)} → ${ms(p.run.p95Ms)}${interval(p.run)}${change(p.baseline.p95Ms, p.run.p95Ms)}`,
      `${ms(p.baseline.p99Ms)} → ${ms(p.run.p99Ms)}${change(p.baseline.p99Ms, p.run.p99Ms)}`,
      `${rate(p.baseline.rates.http429)} → ${rate(p.run.rates.http429)}`,
      `${rate(p.baseline.rates.http504)} → ${rate(p.run.rates.http504)}`,
      `${rate(p.baseline.rates.errors)} → ${rate(p.run.rates.errors)}`,
    ]),
  ];
}

/** How the rule reads, in one sentence. */
export function comparisonRule(c: Comparison): string {
  return `A regression is flagged only when it is clear: a phase's p95 interval lies above the baseline's by more than ${Math.round(c.tolerance * 100)} %, or its rate of 429s, 504s or other failures rose more than chance explains (Fisher's exact test, one-sided, with Holm's correction over every rate compared: family-wise ${c.alpha}).`;
}

/** The findings as lines, `<phase>: <text>`, regressions first. */
export function comparisonFindings(c: Comparison): {
  regressions: string[];
  inconclusive: string[];
  improvements: string[];
} {
  const of = (kind: Finding['kind']): string[] =>
    c.phases.flatMap((p) => p.findings.filter((f) => f.kind === kind).map((f) => `${p.phase}: ${f.text}`));
  return { regressions: of('regression'), inconclusive: of('inconclusive'), improvements: of('improvement') };
}

/** One line: the outcome. */
export function comparisonVerdict(c: Comparison): string {
  const { regressions, inconclusive } = comparisonFindings(c);
  const changes = (n: number): string => (n === 1 ? 'change' : 'changes');
  if (c.regression) return `REGRESSION: ${regressions.length} clear ${changes(regressions.length)} for the worse`;
  return inconclusive.length > 0
    ? `INCONCLUSIVE: ${inconclusive.length} ${changes(inconclusive.length)} for the worse the tool's own lateness could have made`
    : 'no clear change for the worse';
}

/** The terminal's text of `loadproof compare`. */
export function formatComparison(c: Comparison, baselineDir: string, runDir: string, exitCode: number): string {
  const { regressions, inconclusive, improvements } = comparisonFindings(c);
  return [
    '',
    `${runDir} (${c.run.scenario}, ${c.run.startedAt}) against the baseline ${baselineDir} (${c.baseline.scenario}, ${c.baseline.startedAt})`,
    'steady state of each phase, model time, baseline → run',
    '',
    ...formatTable(comparisonRows(c)).map((l) => `  ${l}`),
    '',
    comparisonRule(c),
    ...regressions.map((r) => `  regression: ${r}`),
    ...inconclusive.map((r) => `  inconclusive: ${r}`),
    ...improvements.map((r) => `  better: ${r}`),
    ...c.notes.map((n) => `  note: ${n}`),
    `result: ${comparisonVerdict(c)} — exit ${exitCode}`,
    '',
  ].join('\n');
}
