/**
 * The one-glance header: the verdict and why in one sentence, then a strip of key figures (requests, goodput, p95 per
 * load band against its target, 429s, 504s, errors); and the short reasons that open the evidence of a run that did
 * not pass.
 */
import type { Summary } from '../judge/index.js';
import type { ReportTable } from './content-types.js';
import { errorsOf, ms } from './figure-text.js';
import { inTargetWords } from './target-text.js';

type Check = Summary['verdict']['checks'][number];

const where = (c: Check): string =>
  `${c.phase === null ? 'run' : c.phase}${c.band === undefined ? '' : ` (${c.band} band)`}`;

/** The verdict and why, in one sentence. */
export function headline(summary: Summary): string {
  const v = summary.verdict;
  const status = v.status.toUpperCase();
  const mock = summary.target.kind === 'real' ? '' : ' Against a mock: the form of the evidence, not the service’s.';
  const partial = summary.partial ? ' The run did not end normally: its figures are partial.' : '';
  const deciding = v.checks.filter((c) => c.status === v.status);
  if (v.status === 'pass') {
    const refused = summary.overall.outcomes.http_429;
    return `${status}: all ${v.checks.length} checks held${refused > 0 ? `, although ${refused} of ${summary.overall.sent} requests were refused (429) and are not in latency` : ''}.${partial}${mock}`;
  }
  const first = deciding[0];
  const why = first === undefined ? (v.reasons[0] ?? 'see the evidence') : `${where(first)}: ${first.what}`;
  const more = deciding.length > 1 ? ` (and ${deciding.length - 1} more, below)` : '';
  return `${status}: ${v.status === 'fail' ? 'failed' : 'could not decide'} ${inTargetWords(summary, why)}${more}.${partial}${mock}`;
}

/** The worst steady p95 of each load band across the phases, against its target. */
function bandP95s(summary: Summary): { band: string; p95: number | null; target: number }[] {
  const bands = new Map<string, { band: string; p95: number | null; target: number }>();
  for (const p of summary.phases)
    for (const b of p.bands) {
      if (b.band === null || b.p95Ms === null) continue;
      const p95 = typeof b.steadyLatencyMs.p95 === 'number' ? b.steadyLatencyMs.p95 : null;
      const seen = bands.get(b.band);
      if (seen === undefined) bands.set(b.band, { band: b.band, p95, target: b.p95Ms });
      else if (p95 !== null && (seen.p95 === null || p95 > seen.p95)) seen.p95 = p95;
    }
  return [...bands.values()];
}

/** The key figures, one row: each a heading and its value with its unit. */
export function kpis(summary: Summary): ReportTable {
  const o = summary.overall;
  const bands = bandP95s(summary);
  return {
    head: ['Requests sent', 'Goodput', ...bands.map((b) => `p95, ${b.band} band`), '429 (requests)', '504', 'Errors'],
    rows: [
      [
        `${o.sent} of ${summary.counts.planned}`,
        o.goodputRpm === null ? '—' : `${o.goodputRpm.toFixed(1)} rpm answered 2xx`,
        ...bands.map((b) => `${ms(b.p95)} (target < ${ms(b.target)})`),
        String(o.outcomes.http_429),
        String(o.outcomes.http_504),
        String(errorsOf(o)),
      ],
    ],
    numeric: [],
  };
}

/** One short line a deciding check, for the evidence of a run that did not pass: where, what, the outcome. */
export function shortReasons(summary: Summary): string[] {
  const v = summary.verdict;
  if (v.status === 'pass') return [];
  return v.checks
    .filter((c) => c.status === v.status)
    .map((c) => inTargetWords(summary, `${where(c)}: ${c.what}: ${c.status.toUpperCase()}, ${firstClause(c.reason)}`));
}

/** A reason's first clause (to its first ": ", "; " or ", but"), at most about 140 characters. */
function firstClause(reason: string): string {
  const cut = reason.split(/: |; |, but /)[0]!;
  return cut.length <= 140 ? cut : `${cut.slice(0, cut.lastIndexOf(' ', 138))} …`;
}
