/**
 * The known PHI of a deid run in words and rows, as the terminal, the report and the brief say it: one content, so
 * every place gives the same figures. Counts only, never the PHI.
 */
import type { Summary } from '../judge/index.js';
import type { ReportTable } from './content-types.js';
import { plural } from './figure-text.js';

type PhiSummary = NonNullable<Summary['phi']>;
interface Counts {
  readonly planted: number;
  readonly found: number;
  readonly removed: number;
  readonly partlyInClear: number;
  readonly inClear: number;
}

/** Said wherever a run's recall is read against loadproof's mock (embedded, or `loadproof mock`); none otherwise. */
export function mockDetectorLines(summary: Summary): string[] {
  const kind = summary.target.kind;
  if (kind !== 'embedded-mock' && kind !== 'loadproof-mock') return [];
  const which = kind === 'embedded-mock' ? 'The embedded mock' : "loadproof's mock";
  return [`${which}'s detector stands in for the service's model: what it misses is the mock's, not the service's.`];
}

/** Said where a deid run had no ground truth. */
export const NO_GROUND_TRUTH_LINE =
  'No document had known PHI (ground truth): without ground truth, what identification missed cannot be known.';

/** A fraction as a percentage: 0 as "0 %", under 1 % to three decimals, else two. */
const percentText = (fraction: number | null): string =>
  fraction === null ? '—' : fraction === 0 ? '0 %' : `${(fraction * 100).toFixed(fraction < 0.01 ? 3 : 2)} %`;

const leakedOf = (c: Counts): number => c.inClear + c.partlyInClear;
const ratio = (x: number, n: number): number | null => (n === 0 ? null : x / n);

/** The leak rate's 95 % bounds, as a phi threshold's reason prints the one it was decided on. */
const boundsText = (o: PhiSummary['overall']): string =>
  o.leaked === 0
    ? `at most ${percentText(o.leakRateUpper95)} at 95 %`
    : `between ${percentText(o.leakRateLower95)} and ${percentText(o.leakRateUpper95)} at 95 %`;

/** The one line of recall: items, found, left in clear with the leak rate's 95 % bounds, what was not judged. */
export function phiHeadline(phi: PhiSummary): string {
  const o = phi.overall;
  const apart =
    phi.notVerified.items === 0
      ? ''
      : ` ${plural(phi.notVerified.items, 'more item')} in ${plural(phi.notVerified.documents, 'document')} not delivered whole (failed, cut short or cut at the output cap) were not judged${phi.notVerified.leaked === 0 ? '' : `; ${phi.notVerified.leaked} of them showed in clear in an output`}.`;
  if (o.planted === 0) return `Known PHI: no item in a document delivered whole.${apart}`;
  return `Known PHI: ${plural(o.planted, 'item')} in ${plural(phi.documents.deliveredWhole, 'document')} delivered whole; identification found ${percentText(o.recall)} (recall); ${o.leaked} left in clear, whole or in part (leak rate ${percentText(o.leakRate)}, ${boundsText(o)}).${apart}`;
}

const HEAD = ['planted', 'found', 'recall', 'removed', 'partly in clear', 'in clear', 'leak rate'];

function cells(c: Counts): string[] {
  return [
    String(c.planted),
    String(c.found),
    percentText(ratio(c.found, c.planted)),
    String(c.removed),
    String(c.partlyInClear),
    String(c.inClear),
    percentText(ratio(leakedOf(c), c.planted)),
  ];
}

const table = (first: string, rows: string[][]): ReportTable => ({
  head: [first, ...HEAD],
  rows,
  numeric: HEAD.map((_, i) => i + 1),
});

/** Per phase and overall, with the items that straddle a cut of the first split. */
export function phiPhaseTable(phi: PhiSummary): ReportTable {
  return table('phase', [
    ...phi.byPhase.map((p) => [p.name, ...cells(p)]),
    ['overall', ...cells(phi.overall)],
    ['straddling a cut', ...cells(phi.straddling)],
  ]);
}

/** By kind, the kinds with leaks first (most leaked first), then by items planted. */
export function phiKindTable(phi: PhiSummary): ReportTable {
  const kinds = Object.entries(phi.byKind) as [string, Counts][];
  kinds.sort(([a, x], [b, y]) => leakedOf(y) - leakedOf(x) || y.planted - x.planted || a.localeCompare(b));
  return table(
    'kind',
    kinds.map(([k, c]) => [k, ...cells(c)]),
  );
}

/** By the length class of the documents the items were in. */
export function phiLengthClassTable(phi: PhiSummary): ReportTable {
  return table(
    'length class',
    Object.entries(phi.byLengthClass).map(([k, c]) => [k, ...cells(c)]),
  );
}
