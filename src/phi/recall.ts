/**
 * What became of each known item of PHI in one text sent through de-identification: whether identification
 * found it (its entities cover every letter and digit of it), and whether the obfuscated text still shows it.
 *
 * What is still shown is read by position when the service's replacements account for its output exactly
 * (applied to the input they give the output, character for character): then every letter or digit of an item
 * outside the replaced spans is in clear. Otherwise (an answer without usable replacements) it is read from the
 * text: each word of the item (two letters or digits or more) found as a whole word in the output is taken as
 * shown, which may count a common word that appears elsewhere; the result says which reading was used.
 * Nothing here keeps the PHI itself: items are spans, kinds and counts.
 */
import type { PhiKind } from './kinds.js';
import type { PlantedPhi } from './planted.js';

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
  const words = shown === undefined ? outputWords(output.text) : undefined;
  const items = planted.map((p): ItemRecall => {
    const found = allSignificantIn(text, p, covered);
    const fate =
      shown !== undefined
        ? fateByPosition(text, p, shown, output.replacements ?? [])
        : fateByWords(text.slice(p.start, p.end), words!, output.text);
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

function fateByPosition(text: string, p: PlantedPhi, shown: Uint8Array, replacements: readonly Replaced[]): ItemFate {
  let significant = 0;
  let showing = 0;
  for (let i = p.start; i < p.end; i++) {
    if (!isSignificant(text[i]!)) continue;
    significant++;
    if (shown[i] === 1) showing++;
  }
  // A replacement over the item that writes it back out is no removal (the same text elsewhere is another item's).
  const value = text.slice(p.start, p.end);
  if (replacements.some((r) => r.start < p.end && p.start < r.end && r.replacement.includes(value))) return 'inClear';
  if (showing === 0) return 'removed';
  return showing === significant ? 'inClear' : 'partlyInClear';
}

/** The output's words (runs of letters and digits), as a set. */
function outputWords(outputText: string): ReadonlySet<string> {
  return new Set(outputText.match(/[\p{L}\p{N}]+/gu) ?? []);
}

function fateByWords(value: string, words: ReadonlySet<string>, outputText: string): ItemFate {
  if (outputText.includes(value)) return 'inClear';
  const own = (value.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= 2);
  const showing = own.filter((w) => words.has(w)).length;
  if (showing === 0) return 'removed';
  return showing === own.length ? 'inClear' : 'partlyInClear';
}
