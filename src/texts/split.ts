/**
 * Client-side splitting of a document longer than PHI Identification takes (the spec: "about 1,024
 * model tokens … larger documents are split by the client"). Pieces are contiguous slices of the
 * document — concatenated in order they give it back — each with its offset, so entities found in a
 * piece map back to document positions. A piece is cut at the coarsest boundary that makes it fit:
 * between paragraphs, then lines, then sentences, then words; a word is cut only when it alone is over
 * the limit, and then between grapheme clusters (never inside a surrogate pair or before a combining
 * mark), or, for a single cluster over the limit, between code points (never inside a surrogate pair). No piece is
 * empty.
 */
import { estimateModelTokens } from '../spec/index.js';

export interface Piece {
  readonly text: string;
  /** UTF-16 offset of the piece's first character in the document. */
  readonly offset: number;
}

export interface SplitLimits {
  /** The per-request limit, in estimated model tokens (the spec's 1,024). */
  readonly maxTokens: number;
  /** Share of maxTokens kept free (0 ≤ margin < 1): our token estimate is only an estimate. */
  readonly margin: number;
}

/** The spec's limit with a tenth kept free: 921 tokens, 767 characters at our 1.2 tokens per character. */
export const DEFAULT_SPLIT_LIMITS: SplitLimits = { maxTokens: 1024, margin: 0.1 };

/** The most estimated tokens a piece may have under `limits`. */
export function pieceTokenBudget(limits: SplitLimits): number {
  return Math.floor(limits.maxTokens * (1 - limits.margin));
}

/** The longest piece, in UTF-16 units, whose estimate fits the budget (the estimate grows with length). */
export function maxPieceLength(limits: SplitLimits): number {
  const budget = pieceTokenBudget(limits);
  let length = Math.max(0, Math.floor(budget / 1.2) + 2);
  while (length > 0 && estimateModelTokens('x'.repeat(length)) > budget) length--;
  return length;
}

/** Splits `text` into pieces that each fit `limits`; an empty text has no pieces. */
export function splitDocument(text: string, limits: SplitLimits = DEFAULT_SPLIT_LIMITS): Piece[] {
  if (!(limits.maxTokens > 0) || !(limits.margin >= 0 && limits.margin < 1)) {
    throw new RangeError(`split limits: expected maxTokens > 0 and 0 ≤ margin < 1, got ${JSON.stringify(limits)}`);
  }
  const maxLength = maxPieceLength(limits);
  if (maxLength < 2)
    throw new RangeError(`split limits: a budget of ${pieceTokenBudget(limits)} tokens holds no character pair`);
  const pieces: Piece[] = [];
  splitSpan(text, 0, text.length, 0, maxLength, pieces);
  return pieces;
}

/**
 * The end of a sentence, and the spaces after it; not after a title, a common abbreviation, an apartment or suite, or
 * a single capital (an initial): a cut after "Dr. ", "Kolby U. " or "Apt. " would part a name or an address.
 */
export const SENTENCE_END = String.raw`(?<!\b(?:Dr|Mr|Mrs|Ms|Prof|St|No|vs|e\.g|i\.e|approx|Apt|Ste))(?<!(?<![\p{L}\p{N}])\p{Lu})[.!?]+["')\]]*\s+|[。！？]+\s*`;

/**
 * Boundaries from coarse to fine: each returns the ends of the units of text[from, to) (the last is
 * `to`). A unit keeps the separator after it, so units are contiguous.
 */
const LEVELS: readonly ((text: string, from: number, to: number) => number[])[] = [
  (t, f, e) => endsAfter(t, f, e, /\n[ \t]*\n\s*/g), // paragraphs: a blank line
  (t, f, e) => endsAfter(t, f, e, /\n\s*/g), // lines
  (t, f, e) => endsAfter(t, f, e, new RegExp(SENTENCE_END, 'gu')),
  (t, f, e) => endsAfter(t, f, e, /\S+|\s+/g), // words, and the spaces between them as units of their own
  graphemeEnds,
  codePointEnds,
];

function splitSpan(text: string, from: number, to: number, level: number, maxLength: number, out: Piece[]): void {
  if (to - from <= maxLength) {
    if (to > from) out.push({ text: text.slice(from, to), offset: from });
    return;
  }
  const ends = LEVELS[level]!(text, from, to);
  // Greedy: as many whole units as fit go in one piece; a unit over the limit alone is cut finer.
  let start = from;
  let end = from;
  for (const unitEnd of ends) {
    if (unitEnd - start <= maxLength) {
      end = unitEnd;
      continue;
    }
    if (end > start) {
      out.push({ text: text.slice(start, end), offset: start });
      start = end;
    }
    if (unitEnd - start <= maxLength) end = unitEnd;
    else {
      splitSpan(text, start, unitEnd, level + 1, maxLength, out);
      start = end = unitEnd;
    }
  }
  if (end > start) out.push({ text: text.slice(start, end), offset: start });
}

/** Ends of the units of text[from, to) when each unit ends after a match of `separator` (global). */
function endsAfter(text: string, from: number, to: number, separator: RegExp): number[] {
  const span = text.slice(from, to);
  const ends: number[] = [];
  for (const match of span.matchAll(separator)) ends.push(from + match.index + match[0].length);
  if ((ends.at(-1) ?? from) < to) ends.push(to);
  return ends;
}

/**
 * Ends of the grapheme clusters of text[from, to), by the rules that matter for text people write: no
 * cut inside a surrogate pair or a CR LF, before a combining mark, a variation selector, a zero-width
 * joiner or an emoji skin-tone modifier, or after a zero-width joiner. (Intl.Segmenter is exact but
 * copies its input into every segment it yields: quadratic, minutes for one long word.)
 */
function graphemeEnds(text: string, from: number, to: number): number[] {
  const ends: number[] = [];
  for (let i = from; i < to;) {
    i += text.codePointAt(i)! > 0xffff && i + 1 < to ? 2 : 1;
    if (i === to || !joinsPrevious(text, i)) ends.push(i);
  }
  return ends;
}

const CONTINUES_CLUSTER = /^[\p{M}\u200d\u{1f3fb}-\u{1f3ff}]/u;

/** Whether the character at `i` belongs to the cluster before it. */
function joinsPrevious(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  if (before === 0x200d) return true;
  if (before === 0x0d && text.charCodeAt(i) === 0x0a) return true;
  return CONTINUES_CLUSTER.test(text.slice(i, i + 2));
}

/** Ends of the code points of text[from, to): the last resort, for a single cluster over the limit. */
function codePointEnds(text: string, from: number, to: number): number[] {
  const ends: number[] = [];
  for (let i = from; i < to;) {
    i += text.codePointAt(i)! > 0xffff && i + 1 < to ? 2 : 1;
    ends.push(i);
  }
  return ends;
}
