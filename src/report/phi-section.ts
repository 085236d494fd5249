/** mode deid: what became of the documents' known PHI — the report's recall section. */
import type { Summary } from '../judge/index.js';
import type { ReportContent } from './content-types.js';
import {
  mockDetectorLines,
  NO_GROUND_TRUTH_LINE,
  phiHeadline,
  phiKindTable,
  phiLengthClassTable,
  phiPhaseTable,
} from './phi-words.js';

/** Undefined outside mode deid. */
export function phiSection(summary: Summary): ReportContent['phi'] {
  if (summary.deid === null) return undefined;
  const mock = mockDetectorLines(summary);
  const phi = summary.phi;
  if (phi === null) return { intro: NO_GROUND_TRUTH_LINE, tables: [], lines: mock };
  const method =
    phi.method.text === 0
      ? 'Every output was read by the positions of the replacements the service gave.'
      : `${phi.method.text} of ${phi.method.aligned + phi.method.text} outputs had no replacements that rebuild them and were read by their words (an item word found elsewhere in the output counts as shown).`;
  return {
    intro: `${phiHeadline(phi)} Found: identification's entities covered every letter and digit of the item. Removed: nothing of it shows in the obfuscated output; partly in clear: some of it does (half a name); leak rate: partly or wholly in clear ÷ planted. Straddling: items that cross a cut between two pieces of the split.`,
    tables: [
      { caption: 'Per phase', table: phiPhaseTable(phi) },
      { caption: 'By kind (kinds with leaks first)', table: phiKindTable(phi) },
      { caption: 'By length class', table: phiLengthClassTable(phi) },
    ],
    lines: [method, ...mock],
  };
}
