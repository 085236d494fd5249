/**
 * Text with its planted PHI as spans. A sentence is written with a placeholder where each item goes, and the
 * placeholders are then replaced by the items, so each item's span is exactly where it was put (searching for
 * its text afterwards could find it elsewhere: a name "Al" inside "Allergies").
 */
import type { PhiKind, PlantedPhi } from '../phi/index.js';

/** Plants one item of PHI and returns what stands for it in the sentence being written. */
export type Plant = (kind: PhiKind, value: string) => string;

/** A piece of a document: its text and the PHI planted in it (spans of that text). */
export interface Fragment {
  readonly text: string;
  readonly phi: readonly PlantedPhi[];
}

// Private-use characters: no generated text or value holds them.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const PLACEHOLDER = /\uE000(\d+)\uE001/g;

/** Writes a fragment with `write`, every item it plants becoming a span of the fragment. */
export function planted(write: (plant: Plant) => string): Fragment {
  const items: { kind: PhiKind; value: string }[] = [];
  const drafted = write((kind, value) => {
    items.push({ kind, value });
    return `${OPEN}${items.length - 1}${CLOSE}`;
  });
  const phi: PlantedPhi[] = [];
  let text = '';
  let last = 0;
  for (const match of drafted.matchAll(PLACEHOLDER)) {
    const item = items[Number(match[1])]!;
    text += drafted.slice(last, match.index);
    phi.push({ kind: item.kind, start: text.length, end: text.length + item.value.length });
    text += item.value;
    last = match.index + match[0].length;
  }
  return { text: text + drafted.slice(last), phi };
}

/** The fragments joined by `separator`, their spans moved to where each fragment now starts. */
export function joinFragments(fragments: readonly Fragment[], separator: string): Fragment {
  const phi: PlantedPhi[] = [];
  let offset = 0;
  for (const fragment of fragments) {
    for (const p of fragment.phi) phi.push({ kind: p.kind, start: p.start + offset, end: p.end + offset });
    offset += fragment.text.length + separator.length;
  }
  return { text: fragments.map((f) => f.text).join(separator), phi };
}

/** The fragment cut to at most `length` characters, never inside an item (half of one would be PHI unlisted). */
export function truncateFragment(fragment: Fragment, length: number): Fragment {
  const cut = fragment.phi.reduce((at, p) => (p.start < at && at < p.end ? p.start : at), length);
  return { text: fragment.text.slice(0, cut), phi: fragment.phi.filter((p) => p.end <= cut) };
}
