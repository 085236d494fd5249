/** summary.json's text, written in pieces. */
import type { Summary } from './summary.js';

/** Timeline rows per piece of summaryJson's text. */
const ROWS_PER_PIECE = 512;

/**
 * summary.json's text, in pieces that end with a newline: as JSON.stringify(summary, null, 2), but one
 * timeline window per line. A 24-hour run's 8,640 windows then read as a table at half the size, and
 * the text is never held whole: as one indented string it made the end of a long run its memory peak.
 */
export function* summaryJson(summary: Summary): Generator<string> {
  const text = JSON.stringify({ ...summary, timeline: [] }, null, 2);
  const at = text.indexOf('\n  "timeline": [],\n');
  if (at < 0) throw new Error('unreachable: a summary has a timeline');
  yield `${text.slice(0, at)}\n  "timeline": [\n`;
  for (let i = 0; i < summary.timeline.length; i += ROWS_PER_PIECE) {
    const rows = summary.timeline
      .slice(i, i + ROWS_PER_PIECE)
      .map((row, j) => `    ${JSON.stringify(row)}${i + j < summary.timeline.length - 1 ? ',' : ''}\n`);
    yield rows.join('');
  }
  yield `  ],\n${text.slice(at + '\n  "timeline": [],\n'.length)}\n`;
}
