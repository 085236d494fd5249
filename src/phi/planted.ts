/**
 * Ground truth: the PHI a text is known to hold, as spans of the text. A generated document knows where it put
 * each item; a user's text says what it holds (`{text, kind}` annotations), and each place an annotated text
 * stands as whole words is an item (one per span).
 */
import type { PhiKind } from './kinds.js';
import { standsAlone } from './words.js';

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
 * inside "Annual"), in text order, as items: one item per span, so that a leak is counted once. An occurrence inside
 * a longer annotation's occurrence is part of that item (the longest span wins: "Lee" inside "Ann Lee" is not an
 * item of its own, "Lee" standing alone is); the same span annotated under two kinds takes the first annotation's
 * kind. Annotations not found at all are returned apart: the caller says which, rather than counting them removed.
 */
export function locateAnnotations(
  text: string,
  annotations: readonly PhiAnnotation[],
): { readonly planted: PlantedPhi[]; readonly missing: PhiAnnotation[] } {
  const occurrences: PlantedPhi[] = [];
  const missing: PhiAnnotation[] = [];
  for (const a of annotations) {
    const before = occurrences.length;
    for (let at = a.text === '' ? -1 : text.indexOf(a.text); at !== -1;) {
      if (standsAlone(text, at, at + a.text.length)) {
        occurrences.push({ kind: a.kind, start: at, end: at + a.text.length });
        at = text.indexOf(a.text, at + a.text.length);
      } else at = text.indexOf(a.text, at + 1);
    }
    if (a.text !== '' && occurrences.length === before) missing.push(a);
  }
  return { planted: onePerSpan(occurrences), missing };
}

/** Longest first (a stable sort keeps annotation order among equals); a span inside one already kept is dropped. */
function onePerSpan(occurrences: readonly PlantedPhi[]): PlantedPhi[] {
  const kept: PlantedPhi[] = [];
  for (const o of [...occurrences].sort((x, y) => y.end - y.start - (x.end - x.start))) {
    if (!kept.some((k) => k.start <= o.start && o.end <= k.end)) kept.push(o);
  }
  return kept.sort((x, y) => x.start - y.start || y.end - x.end);
}
