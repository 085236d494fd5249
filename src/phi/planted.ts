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
 * Every occurrence of each annotation in `text`, in text order, as items (an occurrence inside a longer
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
    let at = text.indexOf(a.text);
    if (at === -1) missing.push(a);
    for (; at !== -1; at = text.indexOf(a.text, at + a.text.length)) {
      planted.push({ kind: a.kind, start: at, end: at + a.text.length });
    }
  }
  planted.sort((x, y) => x.start - y.start || y.end - x.end);
  return { planted, missing };
}
