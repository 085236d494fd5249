/** The terminal's short "top errors" after the phase table: the three largest groups of failed requests. */
import type { Summary } from '../judge/index.js';

/** The most rows shown on the terminal (report.md and summary.json hold more). */
const SHOWN = 3;
/** The most characters of a sample on the terminal: one line. */
const SAMPLE_CHARS = 100;

const cut = (text: string): string => {
  const chars = Array.from(text);
  return chars.length <= SAMPLE_CHARS ? text : `${chars.slice(0, SAMPLE_CHARS - 1).join('')}…`;
};

/** Nothing when no request failed. The samples were masked and neutralised when the run kept them. */
export function topErrorLines(summary: Summary): string[] {
  const top = summary.topErrors.slice(0, SHOWN);
  const notGrouped = summary.topErrorsNotGrouped ?? 0;
  if (top.length === 0 && notGrouped === 0) return [];
  return [
    'top errors (of the 504s and errors above; each group with what its first request was told; more in report.md):',
    ...top.map((e) => {
      const what = [e.status === null ? 'no answer' : `${e.status}`, e.outcome, ...(e.code === null ? [] : [e.code])];
      const share = `${(e.share * 100).toFixed(e.share < 0.1 ? 2 : 1)} %`;
      const sample = e.sample === null ? '' : `: ${cut(e.sample)}`;
      return `  ${e.count} × ${what.join(' ')} (${share} of sent)${sample}`;
    }),
    // Many different errors past the groups a run tells apart: never shown as one error.
    ...(notGrouped === 0
      ? []
      : [`  other errors, not grouped: ${notGrouped} (more distinct errors than 1,000 groups)`]),
    '',
  ];
}
