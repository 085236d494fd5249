/** Small text helpers shared by the plan description, the verdict's reasons and the terminal table. */
import { isUnanswered } from './unanswered.js';

/** Milliseconds as people read them: 950 → "950ms", 2500 → "2.50s". */
export function formatMs(ms: number): string {
  if (isUnanswered(ms)) return 'unanswered';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${Math.round(ms)}ms`;
}

/** Rows of cells as aligned columns, two spaces apart; `alignRight(col)` right-aligns a column. */
export function formatTable(
  rows: readonly (readonly string[])[],
  alignRight: (col: number) => boolean = () => false,
): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) =>
    r
      .map((cell, col) => (alignRight(col) ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * Characters that would act on a terminal or reorder what it shows (controls, bidi and other format
 * characters, line separators), written as \uXXXX so a value echoed in a message is seen as typed.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `text` with every control, format and line-separator character escaped as \uXXXX. */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A short JSON rendering of a value for an error message: "nothing" when absent, NaN / Infinity /
 * -Infinity as such (JSON would say null), invisible characters escaped, a URL's user:password@
 * hidden, cut at 60 characters.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  const text = escapeInvisible(
    (JSON.stringify(value) ?? String(value)).replace(/([a-z][\w+.-]*:\/\/)[^/@\s"]*@/gi, '$1…@'),
  );
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The longest user value a message echoes whole; longer ones are cut, so one value cannot flood the terminal. */
const MAX_ECHO_CHARS = 200;
const JSON_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value the user gave (an environment variable, a path), as a message may echo it: line breaks and other
 * invisible characters escaped JSON-style (\r\n, \uXXXX), so it cannot start a line of its own, and cut at
 * MAX_ECHO_CHARS with "…".
 */
export function echoValue(text: string): string {
  const cut = text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}…` : text;
  return escapeInvisible(cut.replace(/[\n\r\t]/g, (c) => JSON_ESCAPES[c]!));
}
