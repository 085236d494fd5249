/** mode deid: what became of the documents' known PHI, on the terminal (the report's figures, in its words). */
import { formatTable } from '../core/index.js';
import type { Summary } from '../judge/index.js';
import { mockDetectorLines, NO_GROUND_TRUTH_LINE, phiHeadline, phiKindTable, phiPhaseTable } from '../report/index.js';

export function phiLines(summary: Summary): string[] {
  if (summary.deid === null) return [];
  const mock = mockDetectorLines(summary);
  const phi = summary.phi;
  if (phi === null) return [NO_GROUND_TRUTH_LINE, ...mock, ''];
  const indented = (t: { head: readonly string[]; rows: readonly (readonly string[])[] }): string[] =>
    formatTable([t.head, ...t.rows], (col) => col > 0).map((l) => `  ${l}`);
  return [
    'known PHI: items planted, found by identification, removed by obfuscation, left in clear (documents delivered whole)',
    '',
    ...indented(phiPhaseTable(phi)),
    '',
    ...indented(phiKindTable(phi)),
    '',
    phiHeadline(phi),
    ...mock,
    '',
  ];
}
