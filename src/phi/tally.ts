/**
 * Counts of what became of known PHI, by kind, by the document's length class and for items that straddle a
 * cut: what a document's line of documents.ndjson keeps (no PHI, only counts), and what a phase, a run or a
 * `deid` call adds up.
 */
import type { PhiKind } from './kinds.js';
import type { ItemRecall, TextRecall } from './recall.js';

export interface RecallCounts {
  /** Known items sent. */
  readonly planted: number;
  /** Found by identification. */
  readonly found: number;
  /** Nothing of them shows in the output. */
  readonly removed: number;
  /** Some of them shows (half a name). */
  readonly partlyInClear: number;
  /** All of them shows. */
  readonly inClear: number;
}

export interface PhiTally {
  readonly overall: RecallCounts;
  readonly byKind: Readonly<Partial<Record<PhiKind, RecallCounts>>>;
  /** By the length class of the document the items were in (generated documents; `user` for a user's texts). */
  readonly byLengthClass: Readonly<Record<string, RecallCounts>>;
  /** Items that cross a cut between two pieces. */
  readonly straddling: RecallCounts;
  /** Texts whose output was read by the replacements' positions, and by its words. */
  readonly method: { readonly aligned: number; readonly text: number };
}

const NO_COUNTS: RecallCounts = { planted: 0, found: 0, removed: 0, partlyInClear: 0, inClear: 0 };

export const EMPTY_TALLY: PhiTally = {
  overall: NO_COUNTS,
  byKind: {},
  byLengthClass: {},
  straddling: NO_COUNTS,
  method: { aligned: 0, text: 0 },
};

/** Items left in clear, whole or in part. */
export const leaked = (c: RecallCounts): number => c.inClear + c.partlyInClear;

function countItems(items: readonly ItemRecall[]): RecallCounts {
  let found = 0;
  let removed = 0;
  let partlyInClear = 0;
  let inClear = 0;
  for (const i of items) {
    if (i.found) found++;
    if (i.fate === 'removed') removed++;
    else if (i.fate === 'inClear') inClear++;
    else partlyInClear++;
  }
  return { planted: items.length, found, removed, partlyInClear, inClear };
}

/** One text's tally; `lengthClass` names its class. */
export function tallyText(recall: TextRecall, lengthClass: string): PhiTally {
  const byKind: Partial<Record<PhiKind, ItemRecall[]>> = {};
  for (const i of recall.items) (byKind[i.kind] ??= []).push(i);
  const overall = countItems(recall.items);
  return {
    overall,
    byKind: Object.fromEntries(Object.entries(byKind).map(([k, items]) => [k, countItems(items)])),
    byLengthClass: recall.items.length === 0 ? {} : { [lengthClass]: overall },
    straddling: countItems(recall.items.filter((i) => i.straddles)),
    method: { aligned: recall.method === 'aligned' ? 1 : 0, text: recall.method === 'text' ? 1 : 0 },
  };
}

function addCounts(a: RecallCounts, b: RecallCounts): RecallCounts {
  return {
    planted: a.planted + b.planted,
    found: a.found + b.found,
    removed: a.removed + b.removed,
    partlyInClear: a.partlyInClear + b.partlyInClear,
    inClear: a.inClear + b.inClear,
  };
}

function addRecords<K extends string>(
  a: Readonly<Partial<Record<K, RecallCounts>>>,
  b: Readonly<Partial<Record<K, RecallCounts>>>,
): Partial<Record<K, RecallCounts>> {
  const sum: Partial<Record<K, RecallCounts>> = { ...a };
  for (const [key, counts] of Object.entries(b) as [K, RecallCounts][])
    sum[key] = addCounts(sum[key] ?? NO_COUNTS, counts);
  return sum;
}

export function addTallies(a: PhiTally, b: PhiTally): PhiTally {
  return {
    overall: addCounts(a.overall, b.overall),
    byKind: addRecords(a.byKind, b.byKind),
    byLengthClass: addRecords(a.byLengthClass, b.byLengthClass) as Record<string, RecallCounts>,
    straddling: addCounts(a.straddling, b.straddling),
    method: { aligned: a.method.aligned + b.method.aligned, text: a.method.text + b.method.text },
  };
}
