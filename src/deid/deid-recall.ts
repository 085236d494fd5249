/**
 * What became of a document's known PHI through the chain: each annotated item found by identification or not,
 * removed by obfuscation or left in clear (whole or in part). Items are spans, kinds and counts; where an item left
 * in clear sits is told by line and column, so the user can look it up in their own file.
 */
import { UsageError } from '../core/index.js';
import {
  type ItemFate,
  locateAnnotations,
  type PhiAnnotation,
  type PhiTally,
  type PlantedPhi,
  tallyText,
  textRecall,
} from '../phi/index.js';
import type { DeidResult } from './chain.js';

/** The length class a user's text is counted under. */
const USER_CLASS = 'user';

/** One known item still shown in the output: where it is in the input, never its text. */
export interface LeftInClear {
  readonly kind: PlantedPhi['kind'];
  readonly fate: Exclude<ItemFate, 'removed'>;
  /** 1-based line and column (in UTF-16 units, as JavaScript counts) of its first character in the input. */
  readonly line: number;
  readonly column: number;
  /** In characters. */
  readonly length: number;
  readonly start: number;
  readonly end: number;
  /** Identification's entities covered it (then obfuscation failed to remove it). */
  readonly found: boolean;
  /** It crosses a cut between two pieces of the first split. */
  readonly straddles: boolean;
}

export interface DeidRecall {
  readonly tally: PhiTally;
  readonly leftInClear: readonly LeftInClear[];
}

/**
 * The spans of every annotation in the document; an annotation it does not hold is bad input (exit 2), named by its
 * place in the file, its kind and length (not its text, unless `showValues`): counting it removed would be a lie.
 */
export function locateExpected(
  text: string,
  annotations: readonly PhiAnnotation[],
  file: string,
  showValues: boolean,
): PlantedPhi[] {
  const { planted, missing } = locateAnnotations(text, annotations);
  if (missing.length === 0) return planted;
  const named = missing.slice(0, 10).map((a) => {
    const value = showValues ? ` ${JSON.stringify(a.text)}` : '';
    return `annotation ${annotations.indexOf(a) + 1} (${a.kind}, ${a.text.length} characters${value})`;
  });
  throw new UsageError(
    `${file}: ${missing.length} annotation${missing.length === 1 ? ' is' : 's are'} not in the document: ${named.join(', ')}${missing.length > 10 ? ', …' : ''}; expected each text to occur in it as whole words`,
    'nothing was sent; add --show-values to see their text',
  );
}

/** Recall on the document: identification's entities, the output and its replacements, the first split's cuts. */
export function deidRecall(text: string, planted: readonly PlantedPhi[], result: DeidResult): DeidRecall {
  const recall = textRecall({
    text,
    planted,
    entities: result.entities,
    output: { text: result.text, replacements: result.replacements },
    cuts: result.cuts,
  });
  const lineStarts = startsOfLines(text);
  const leftInClear = recall.items.flatMap((item): LeftInClear[] => {
    if (item.fate === 'removed') return [];
    const { line, column } = position(lineStarts, item.start);
    const { kind, fate, start, end, found, straddles } = item;
    return [{ kind, fate, line, column, length: end - start, start, end, found, straddles }];
  });
  return { tally: tallyText(recall, USER_CLASS), leftInClear };
}

function startsOfLines(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function position(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (lineStarts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return { line: low + 1, column: offset - lineStarts[low]! + 1 };
}
