/**
 * Whether a one-shot de-identification can be trusted, and why not: known PHI left in clear (whole or in part), an
 * entity identification found still present in the output, or a piece whose entities were still cut at the output
 * cap. Any of them is exit 1, said with how many and of which kinds. Without known PHI, what identification missed
 * cannot be known, and that is said too.
 */
import { EXIT } from '../core/index.js';
import { leaked, type PhiKind } from '../phi/index.js';
import type { TargetKind } from '../scenario/index.js';
import type { DeidResult } from './chain.js';
import type { DeidRecall } from './deid-recall.js';

interface DeidVerdict {
  readonly exit: typeof EXIT.pass | typeof EXIT.slaNotMet;
  /** Messages for stderr, each a whole line. */
  readonly lines: readonly string[];
}

/** The line every `deid` against the mock prints: its misses are its own detector's, not the service's model's. */
export function mockCaveat(kind: TargetKind): string | null {
  const whose =
    kind === 'embedded-mock' ? 'The embedded mock' : kind === 'loadproof-mock' ? 'The loadproof mock' : null;
  return whose === null
    ? null
    : `${whose}'s detector stands in for the service's model: what it misses is the mock's, not the service's.`;
}

export function deidVerdict(result: DeidResult, recall: DeidRecall | undefined): DeidVerdict {
  const failures: string[] = [];
  const present = result.foundStillPresent;
  const notes: string[] = [];
  if (recall === undefined) {
    notes.push(
      `deid: No known PHI was given (--expect): what identification missed cannot be known; ${present} entit${present === 1 ? 'y' : 'ies'} it found ${present === 1 ? 'is' : 'are'} still present.`,
    );
  } else {
    const left = leaked(recall.tally.overall);
    const planted = recall.tally.overall.planted;
    if (left > 0)
      failures.push(
        `deid: FAIL: ${left} of ${planted} known PHI item${planted === 1 ? '' : 's'} left in clear: ${leftByKind(recall)}`,
      );
    else notes.push(`deid: all ${planted} known PHI item${planted === 1 ? '' : 's'} removed`);
  }
  if (present > 0)
    failures.push(
      `deid: FAIL: ${present} of the ${result.entities.length} entities identification found ${present === 1 ? 'is' : 'are'} still present in the output`,
    );
  if (result.truncatedPieces > 0)
    failures.push(
      `deid: FAIL: ${result.truncatedPieces} piece(s) still had their entity list cut at the output cap after re-splitting: PHI may remain in the text`,
    );
  return { exit: failures.length > 0 ? EXIT.slaNotMet : EXIT.pass, lines: [...notes, ...failures] };
}

/** `NAME 3 (1 partly), ADDRESS 1`: the kinds left in clear, most first. */
function leftByKind(recall: DeidRecall): string {
  const byKind = new Map<PhiKind, { all: number; partly: number }>();
  for (const item of recall.leftInClear) {
    const counts = byKind.get(item.kind) ?? { all: 0, partly: 0 };
    counts.all++;
    if (item.fate === 'partlyInClear') counts.partly++;
    byKind.set(item.kind, counts);
  }
  return [...byKind]
    .sort((a, b) => b[1].all - a[1].all)
    .map(([kind, c]) => `${kind} ${c.all}${c.partly === 0 ? '' : ` (${c.partly} partly)`}`)
    .join(', ');
}
