/**
 * Recall on known PHI as the terminal shows it: counts by kind and for items straddling a cut, then each item left in
 * clear by kind and position (line:column, length). Its text only with --show-values: stderr is often a CI log, and a
 * log must not hold PHI; the user who asks sees it on their own terminal, as they see the replaced values.
 */
import { formatTable } from '../core/index.js';
import { leaked, type RecallCounts } from '../phi/index.js';
import type { DeidRecall } from './deid-recall.js';

const countCells = (c: RecallCounts): string[] =>
  [c.planted, c.found, c.removed, c.partlyInClear, c.inClear].map(String);

export function recallTable(recall: DeidRecall, original: string, showValues: boolean): string[] {
  const { overall, byKind, straddling } = recall.tally;
  const left = leaked(overall);
  const lines = [
    `deid: known PHI: ${overall.planted} item${overall.planted === 1 ? '' : 's'}; identification found ${overall.found}, obfuscation removed ${overall.removed}, left in clear ${left} (${overall.inClear} whole, ${overall.partlyInClear} partly)`,
  ];
  const rows = [
    ['kind', 'planted', 'found', 'removed', 'partly in clear', 'in clear'],
    ...Object.entries(byKind).map(([kind, counts]) => [kind, ...countCells(counts)]),
    ['all', ...countCells(overall)],
    ['straddling a cut', ...countCells(straddling)],
  ];
  lines.push(...formatTable(rows, (col) => col > 0));
  if (left === 0) return lines;
  lines.push(
    `deid: left in clear, at line:column of the document (length in characters)${showValues ? '' : '; their text only with --show-values'}:`,
  );
  const items = recall.leftInClear.map((i) => [
    i.kind,
    `${i.line}:${i.column}`,
    String(i.length),
    i.fate === 'inClear' ? 'whole' : 'partly',
    i.found ? 'yes' : 'no',
    ...(showValues ? [JSON.stringify(original.slice(i.start, i.end))] : []),
  ]);
  const head = ['kind', 'at', 'length', 'in clear', 'found', ...(showValues ? ['text'] : [])];
  lines.push(...formatTable([head, ...items], (col) => col === 2));
  return lines;
}
