/**
 * What became of each known item of PHI in one text sent through de-identification: whether identification
 * found it (its entities cover every letter and digit of it), and whether the obfuscated text still shows it.
 *
 * What is still shown is read by position when the service's replacements account for its output exactly
 * (applied to the input they give the output, character for character): then every letter or digit of an item
 * outside the replaced spans is in clear, and so is each of its words that a replacement over it writes back.
 * Otherwise (an answer without usable replacements) it is read from the output's words (see `fateByWords`, a
 * weaker reading); the result says which reading was used.
 * Nothing here keeps the PHI itself: items are spans, kinds and counts.
 */
import { PHI_KINDS, type PhiKind } from './kinds.js';
import type { PlantedPhi } from './planted.js';
import { comparable, occursAlone, wordsIn } from './words.js';

/** A span of the input: an entity found, or a replacement made. */
interface Span {
  readonly start: number;
  readonly end: number;
}

interface Replaced extends Span {
  readonly replacement: string;
}

/** `removed`: nothing of it shows; `partlyInClear`: some of it does (half a name); `inClear`: all of it does. */
export type ItemFate = 'removed' | 'partlyInClear' | 'inClear';

export interface ItemRecall {
  readonly kind: PhiKind;
  readonly start: number;
  readonly end: number;
  /** Identification's entities cover every letter and digit of it. */
  readonly found: boolean;
  readonly fate: ItemFate;
  /** It crosses a cut between two pieces of the document's split (its two halves went in different requests). */
  readonly straddles: boolean;
}

export interface TextRecall {
  readonly items: readonly ItemRecall[];
  /** How what shows was read: by the replacements' positions, or by words of the output. */
  readonly method: 'aligned' | 'text';
}

interface RecallInput {
  readonly text: string;
  readonly planted: readonly PlantedPhi[];
  /** Identification's entities, in the text's offsets. */
  readonly entities: readonly Span[];
  /** The obfuscated text, and the replacements the service said it made (empty or absent when it gave none). */
  readonly output: { readonly text: string; readonly replacements?: readonly Replaced[] | undefined };
  /** Where the first split cut the text: the offsets of its pieces after the first. */
  readonly cuts: readonly number[];
}

const SIGNIFICANT = /[\p{L}\p{N}]/u;
const isSignificant = (ch: string): boolean => SIGNIFICANT.test(ch);

export function textRecall(input: RecallInput): TextRecall {
  const { text, planted, entities, output, cuts } = input;
  const covered = coverage(text.length, entities);
  const shown = alignedShown(text, output);
  const outputText = comparable(output.text, false);
  const words = shown === undefined ? new Set(wordsIn(outputText).map((w) => w.word)) : undefined;
  const items = planted.map((p): ItemRecall => {
    const found = allSignificantIn(text, p, covered);
    const fate =
      shown !== undefined
        ? fateByPosition(text, p, shown, output.replacements ?? [])
        : fateByWords(text.slice(p.start, p.end), words!, outputText);
    const straddles = cuts.some((c) => p.start < c && c < p.end);
    return { kind: p.kind, start: p.start, end: p.end, found, fate, straddles };
  });
  return { items, method: shown === undefined ? 'text' : 'aligned' };
}

/** One flag per input character: inside one of `spans`. */
function coverage(length: number, spans: readonly Span[]): Uint8Array {
  const flags = new Uint8Array(length);
  for (const s of spans) flags.fill(1, Math.max(0, s.start), Math.min(length, s.end));
  return flags;
}

function allSignificantIn(text: string, p: PlantedPhi, flags: Uint8Array): boolean {
  for (let i = p.start; i < p.end; i++) if (flags[i] === 0 && isSignificant(text[i]!)) return false;
  return true;
}

/**
 * One flag per input character: it shows in the output, kept where no replacement touched it. Undefined when the
 * replacements do not rebuild the output exactly (overlapping, out of range, or another text).
 */
function alignedShown(text: string, output: RecallInput['output']): Uint8Array | undefined {
  const replacements = [...(output.replacements ?? [])].sort((a, b) => a.start - b.start);
  const shown = new Uint8Array(text.length).fill(1);
  let rebuilt = '';
  let at = 0;
  for (const r of replacements) {
    if (!(Number.isInteger(r.start) && Number.isInteger(r.end) && at <= r.start && r.start <= r.end)) return undefined;
    if (r.end > text.length) return undefined;
    rebuilt += text.slice(at, r.start) + r.replacement;
    shown.fill(0, r.start, r.end);
    at = r.end;
  }
  rebuilt += text.slice(at);
  return rebuilt === output.text ? shown : undefined;
}

/** A kind's name as a replacement writes it, "[ID]" or "<NAME>": a tag's label, not PHI written back. */
const LABELS: ReadonlySet<string> = new Set(PHI_KINDS);

/**
 * Word by word: a word of the item shows where a replacement over the item writes it back (case-folded: "JOHN" is
 * John; a kind's label in capitals is a tag's, not the item's), or where it was left in place, wholly or in part.
 */
function fateByPosition(text: string, p: PlantedPhi, shown: Uint8Array, replacements: readonly Replaced[]): ItemFate {
  const over = replacements.filter((r) => r.start < p.end && p.start < r.end);
  const value = comparable(text.slice(p.start, p.end), true);
  if (over.some((r) => occursAlone(comparable(r.replacement, true), value))) return 'inClear';
  const writtenBack = new Set(
    over.flatMap((r) =>
      wordsIn(comparable(r.replacement, false))
        .map((w) => w.word)
        .filter((w) => !LABELS.has(w))
        .map((w) => w.toLowerCase()),
    ),
  );
  const words = wordsIn(text.slice(p.start, p.end)).map((w) => {
    if (writtenBack.has(comparable(w.word, true))) return 'whole';
    let showing = 0;
    for (let i = p.start + w.start; i < p.start + w.end; i++) showing += shown[i]!;
    return showing === 0 ? 'none' : showing === w.end - w.start ? 'whole' : 'part';
  });
  return fateOf(words);
}

function fateOf(words: readonly ('none' | 'part' | 'whole')[]): ItemFate {
  if (words.every((w) => w === 'none')) return 'removed';
  return words.every((w) => w === 'whole') ? 'inClear' : 'partlyInClear';
}

/** Words shorter than this, or of digits only, are too common in any text to say an item shows. */
const TELLING_LENGTH = 3;
const DIGITS = /^\p{N}+$/u;

/**
 * Without positions: the whole item as whole words of the output is in clear; else its telling words (three
 * characters or more, not digits only) found as words of the output show. Both sides are compared in NFC, case
 * as written. This reading is weaker than by position (results say `method: text`): a common word of an item may
 * be another's, and it cannot see a short or digits-only part left in clear (a two-digit age, a year, a ZIP inside
 * an address) unless the whole item is.
 */
function fateByWords(value: string, words: ReadonlySet<string>, outputText: string): ItemFate {
  if (occursAlone(outputText, comparable(value, false))) return 'inClear';
  const telling = wordsIn(comparable(value, false))
    .map((w) => w.word)
    .filter((w) => [...w].length >= TELLING_LENGTH && !DIGITS.test(w));
  return fateOf(telling.map((w) => (words.has(w) ? 'whole' : 'none')));
}
