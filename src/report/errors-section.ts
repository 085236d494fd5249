/**
 * The "top errors" table (as JMeter's "Top 5 errors", Gatling's errors): the largest groups of failed requests, each
 * with one sample of what the service said, or of the client's error when no answer came. The sample is server text:
 * masked and neutralised where the run kept it, and shown here as a code span, which neither Markdown nor HTML acts on.
 */
import type { Summary } from '../judge/index.js';
import type { ReportContent } from './content-types.js';
import { plural } from './figure-text.js';

type TopError = Summary['topErrors'][number];

/** Failed requests, as the phase table counts its 504s and errors: sent, answered neither 2xx nor 429. */
function failedRequests(summary: Summary): number {
  const o: Record<string, number> = summary.overall.outcomes;
  return Object.entries(o).reduce(
    (sum, [outcome, n]) =>
      ['ok', 'http_429', 'stale_connection', 'dropped', 'unsent'].includes(outcome) ? sum : sum + n,
    0,
  );
}

/** A share as a percentage, with a decimal when small. */
const percent = (share: number): string => `${(share * 100).toFixed(share < 0.1 ? 2 : 1)} %`;

/** The sample as a code span: no backquote can end it early. */
const sampleText = (e: TopError): string =>
  e.sample === null ? '(none kept)' : e.sample === '' ? '(empty body)' : `\`${e.sample.replaceAll('`', "'")}\``;

/** One row of the table. */
const errorRow = (e: TopError, i: number): string[] => [
  String(i + 1),
  e.status === null ? '—' : String(e.status),
  e.outcome,
  e.code ?? '—',
  String(e.count),
  percent(e.share),
  sampleText(e),
];

/**
 * The requests past the groups the run tells apart: a row of its own, unranked and labelled, so no reader takes many
 * different errors for one.
 */
const notGroupedRow = (n: number, sent: number): string[] => [
  '—',
  '—',
  '—',
  '—',
  String(n),
  percent(sent === 0 ? 0 : n / sent),
  'other errors, not grouped (more distinct errors than the 1,000 groups a run tells apart)',
];

/** The section, or nothing when no request failed. */
export function errorsSection(summary: Summary): Pick<ReportContent, 'errors'> {
  const notGrouped = summary.topErrorsNotGrouped ?? 0;
  if (summary.topErrors.length === 0 && notGrouped === 0) return {};
  const failed = failedRequests(summary);
  const shown = summary.topErrors.reduce((sum, e) => sum + e.count, 0) + notGrouped;
  const rest = failed - shown;
  return {
    errors: {
      intro: `${plural(failed, 'request')} of ${summary.overall.sent} sent failed (the phase table's 504s and errors: answered neither 2xx nor 429, or not answered), grouped by status, outcome, error code and message; ${rest === 0 ? 'every group is below' : `the ${summary.topErrors.length} largest groups below, ${plural(rest, 'more request')} in smaller groups`}${notGrouped === 0 ? '' : `, and ${plural(notGrouped, 'request')} in no group (the last row)`}. Each sample is the first of its group: the start of the body the service sent (or the client's error), at most 200 characters, decoded (escapes, entities and percent-encoding undone, zero-width characters dropped), secrets masked, control characters shown as spaces. Share is of the requests sent.`,
      table: {
        head: ['#', 'Status', 'Outcome', 'Code', 'Requests', 'Share', 'Sample'],
        rows: [
          ...summary.topErrors.map(errorRow),
          ...(notGrouped === 0 ? [] : [notGroupedRow(notGrouped, summary.overall.sent)]),
        ],
        numeric: [0, 4, 5],
      },
    },
  };
}
