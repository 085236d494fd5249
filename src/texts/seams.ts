/**
 * Seams: where splitDocument had to cut inside a sentence (between words, or finer), an entity may
 * straddle the cut and be whole in neither piece — a name in a list without full stops, an address, a
 * CJK or emoji run. Each such cut gets a seam: a short extra piece around it (SEAM_REACH characters
 * each side), identified like any piece, so that whatever crosses the cut is seen whole somewhere.
 * Cuts between paragraphs, lines and sentences need none: PHI does not straddle them (a sentence does not end
 * after an initial or "Apt.").
 */
import { type Piece, SENTENCE_END } from './split.js';

/**
 * How far a seam reaches each side of its cut (characters): as long as the longest entity expected (an address with a
 * ZIP+4 is about 90).
 */
export const SEAM_REACH = 128;

/** The smallest pieces (characters) that leave room for whole seams: the chain refuses smaller ones. */
export const MIN_PIECE_CHARS_FOR_SEAMS = 2 * SEAM_REACH;

/** A cut right after a line break or the end of a sentence (as the split reads one). */
const SAFE_BEFORE = new RegExp(`(?:\\n\\s*|${SENTENCE_END})$`, 'u');

/** Whether cutting `text` at `at` can part an entity. */
export function cutIsInsideSentence(text: string, at: number): boolean {
  return !SAFE_BEFORE.test(text.slice(Math.max(0, at - 16), at));
}

/**
 * The seams of a split: one piece around every cut inside a sentence, each at most `maxLength`
 * characters (SEAM_REACH each side, less when pieces must be shorter), never parting a surrogate pair.
 */
export function seamPieces(text: string, pieces: readonly Piece[], maxLength: number): Piece[] {
  const reach = Math.max(1, Math.min(SEAM_REACH, Math.floor(maxLength / 2)));
  const seams: Piece[] = [];
  for (const piece of pieces.slice(1)) {
    const at = piece.offset;
    if (!cutIsInsideSentence(text, at)) continue;
    let from = Math.max(0, at - reach);
    let to = Math.min(text.length, at + reach);
    if (isLowSurrogate(text.charCodeAt(from))) from++;
    if (isLowSurrogate(text.charCodeAt(to))) to--;
    if (to - from >= 2 && text.slice(from, to).trim() !== '') seams.push({ text: text.slice(from, to), offset: from });
  }
  return seams;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
