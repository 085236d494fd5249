/** Small text helpers shared by the plan description, the verdict's reasons and the terminal table. */

/** Milliseconds as people read them: 950 → "950ms", 2500 → "2.50s". */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${Math.round(ms)}ms`;
}

/** Rows of cells as aligned columns, two spaces apart; `alignRight(col)` right-aligns a column. */
export function formatTable(rows: readonly (readonly string[])[], alignRight: (col: number) => boolean = () => false): string[] {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  return rows.map((r) =>
    r
      .map((cell, col) => (alignRight(col) ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** A short JSON rendering of a value for an error message: "nothing" when absent, cut at 60 characters. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
