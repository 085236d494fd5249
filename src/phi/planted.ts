/**
 * Ground truth: the PHI a text is known to hold, as spans of the text. A generated document knows where it put
 * each item; a user's text says what it holds (`{text, kind}` annotations), and every occurrence of each
 * annotated text is an item.
 */
import type { PhiKind } from './kinds.js';

/** One known item of PHI: `text.slice(start, end)` of the text it was planted in. */
export interface PlantedPhi {
  readonly kind: PhiKind;
  /** UTF-16 offset of its first character. */
  readonly start: number;
  /** UTF-16 offset one past its last character. */
  readonly end: number;
}

/** What a user says a text holds. */
export interface PhiAnnotation {
  readonly text: string;
  readonly kind: PhiKind;
}

/**
 * Every occurrence of each annotation in `text` that stands as whole words (not "91" inside "00482913", nor "Ann"
 * inside "Annual"), in text order, as items (an occurrence inside a longer
 * annotation's occurrence is kept too: it must go as well). Annotations not found at all are returned apart:
 * the caller says which, rather than counting them removed.
 */
export function locateAnnotations(
  text: string,
  annotations: readonly PhiAnnotation[],
): { readonly planted: PlantedPhi[]; readonly missing: PhiAnnotation[] } {
  const planted: PlantedPhi[] = [];
  const missing: PhiAnnotation[] = [];
  const seen = new Set<string>();
  for (const a of annotations) {
    if (a.text === '') continue;
    const key = `${a.kind}\u0000${a.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const before = planted.length;
    for (let at = text.indexOf(a.text); at !== -1;) {
      if (standsAlone(text, at, at + a.text.length)) {
        planted.push({ kind: a.kind, start: at, end: at + a.text.length });
        at = text.indexOf(a.text, at + a.text.length);
      } else at = text.indexOf(a.text, at + 1);
    }
    if (planted.length === before) missing.push(a);
  }
  planted.sort((x, y) => x.start - y.start || y.end - x.end);
  return { planted, missing };
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** `text.slice(start, end)` neither starts inside a word nor ends inside one. */
function standsAlone(text: string, start: number, end: number): boolean {
  const joins = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && WORD_CHARACTER.test(a) && WORD_CHARACTER.test(b);
  return !joins(text[start - 1], text[start]) && !joins(text[end - 1], text[end]);
}
