/**
 * Synthetic clinical documents as a product sends them for de-identification: progress notes,
 * discharge summaries and referral letters, in paragraphs, of a length class a scenario chooses
 * (short, typical, near the identification limit, or long enough to need splitting). Every item of
 * fake PHI planted is listed with the document as a span with its kind: the ground truth that recall is
 * measured against. Generated from a seed; no real patient data anywhere.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import type { PlantedPhi } from '../phi/index.js';
import { IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import {
  bodySentence,
  CLOSINGS,
  DISCHARGE_OPENING,
  type DocumentSentence,
  OPENERS,
  REFERRAL_OPENING,
} from './document-sentences.js';
import { seededFakers } from './fakers.js';
import { type Fragment, joinFragments, planted, truncateFragment } from './planting.js';
import { runOnLine, runOnLineChars } from './run-on-lines.js';

export const DOCUMENT_KINDS = ['progress', 'discharge', 'referral'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const LENGTH_CLASSES = ['short', 'typical', 'nearLimit', 'long'] as const;
export type LengthClass = (typeof LENGTH_CLASSES)[number];

const LIMIT_CHARS = maxCharactersFor(IDENTIFICATION_LIMITS.maxTextTokens);

/**
 * Characters of each length class, for pieces of at most `limitChars` (by default the spec's limit,
 * 853 characters): `nearLimit` is the last 80 under it, `long` documents are over it and must be split.
 */
function lengthClassChars(limitChars: number = LIMIT_CHARS): Readonly<Record<LengthClass, readonly [number, number]>> {
  return {
    short: [80, Math.min(400, limitChars)],
    typical: [Math.min(400, limitChars), Math.max(Math.min(400, limitChars), Math.min(700, limitChars - 80))],
    nearLimit: [Math.max(80, limitChars - 80), limitChars],
    long: [limitChars * 2, limitChars * 8],
  };
}

/** The classes at the spec's limit. */
export const LENGTH_CLASS_CHARS = lengthClassChars();

interface SyntheticDocument {
  readonly kind: DocumentKind;
  readonly lengthClass: LengthClass;
  readonly text: string;
  /** Every item of PHI planted, as spans of `text` in text order (a value may repeat: each is an item). */
  readonly phi: readonly PlantedPhi[];
}

/** Relative weights; absent or 0 means never. */
export type Weights<K extends string> = { readonly [key in K]?: number | undefined };

export interface DocumentMix {
  readonly kinds: Weights<DocumentKind>;
  readonly lengths: Weights<LengthClass>;
}

export const DEFAULT_DOCUMENT_MIX: DocumentMix = {
  kinds: { progress: 1, discharge: 1, referral: 1 },
  lengths: { short: 1, typical: 4, nearLimit: 1, long: 1 },
};

const TITLES: Readonly<Record<DocumentKind, string>> = {
  progress: 'PROGRESS NOTE',
  discharge: 'DISCHARGE SUMMARY',
  referral: 'REFERRAL LETTER',
};

/**
 * The share of long documents that hold a run-on line, and the chance of each paragraph to be it: one line a
 * document, as each adds a seam (a request) and fills its pieces — deid.yaml's busier phase must stay under 100 rpm.
 */
const RUN_ON_DOCUMENTS = 0.5;
const RUN_ON_PARAGRAPHS = 0.4;

/** The section headings of each kind, in order; body sentences fill them. */
const SECTIONS: Readonly<Record<DocumentKind, readonly string[]>> = {
  progress: ['Subjective', 'Objective', 'Assessment', 'Plan'],
  discharge: ['Hospital course', 'Condition at discharge', 'Discharge medications', 'Follow-up'],
  referral: ['Reason for referral', 'History', 'Current treatment', 'Request'],
};

/** The first paragraph of each kind: who the document is about. */
const OPENING: Readonly<Record<DocumentKind, DocumentSentence>> = {
  progress: (r, f, p) => pick(r, OPENERS)(r, f, p),
  discharge: DISCHARGE_OPENING,
  referral: REFERRAL_OPENING,
};

/** Draws a key with probability proportional to its weight. */
export function pickWeighted<K extends string>(rng: Rng, weights: Weights<K>): K {
  const entries = Object.entries(weights).filter((e): e is [K, number] => typeof e[1] === 'number' && e[1] > 0);
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  if (total <= 0) throw new RangeError('pickWeighted: no positive weight');
  let x = rng.next() * total;
  for (const [key, weight] of entries) {
    x -= weight;
    if (x < 0) return key;
  }
  return entries[entries.length - 1]![0];
}

/**
 * One document of a kind and length class drawn from `mix`, the classes sized for pieces of `limitChars`
 * (lengthClassChars), with the spans of every item of PHI planted in it.
 */
export function generateDocument(
  rng: Rng,
  mix: DocumentMix = DEFAULT_DOCUMENT_MIX,
  limitChars: number = LIMIT_CHARS,
): SyntheticDocument {
  const kind = pickWeighted(rng, mix.kinds);
  const lengthClass = pickWeighted(rng, mix.lengths);
  const [minChars, maxChars] =
    limitChars === LIMIT_CHARS ? LENGTH_CLASS_CHARS[lengthClass] : lengthClassChars(limitChars)[lengthClass];
  const target = nextInt(rng, minChars, maxChars);
  const fakers = seededFakers(nextInt(rng, 0, 2 ** 31 - 2));
  const write = (sentence: DocumentSentence): Fragment => planted((plant) => sentence(rng, fakers, plant));
  const closing = write(CLOSINGS[kind]);
  const paragraphs: Fragment[] = [planted(() => TITLES[kind]), write(OPENING[kind])];
  let length = paragraphs[0]!.text.length + 2 + paragraphs[1]!.text.length;
  // Room for the closing line, when it fits in the class at all.
  const room = (): number => maxChars - length - (closing.text.length + 2);
  const sections = SECTIONS[kind];
  const used = new Map<DocumentSentence, number>();
  // Some long documents hold run-on lines (a contact list, a visit log): the split must cut inside those.
  let runOnLeft = lengthClass === 'long' && rng.next() < RUN_ON_DOCUMENTS ? 1 : 0;
  for (let section = 0, attempts = 0; attempts < 400 && length < target - closing.text.length; attempts++) {
    if (runOnLeft > 0 && rng.next() < RUN_ON_PARAGRAPHS) {
      const line = runOnLine(rng, fakers, runOnLineChars(rng, limitChars));
      runOnLeft--;
      if (room() - 2 - line.text.length >= 0) {
        paragraphs.push(line);
        length += 2 + line.text.length;
        continue;
      }
    }
    const sentences: Fragment[] = [planted(() => `${sections[section % sections.length]}:`)];
    let paragraphLength = sentences[0]!.text.length;
    const count = nextInt(rng, 2, 5);
    for (let i = 0; i < count && attempts < 400; i++, attempts++) {
      const maker = bodySentence(rng);
      // A note says a thing a few times at most, not ten: a sentence used three times is drawn again.
      if ((used.get(maker) ?? 0) >= 3) continue;
      const sentence = write(maker);
      if (length + 2 + paragraphLength + 1 + sentence.text.length > maxChars - closing.text.length - 2) continue;
      sentences.push(sentence);
      used.set(maker, (used.get(maker) ?? 0) + 1);
      paragraphLength += 1 + sentence.text.length;
      if (length + 2 + paragraphLength >= target - closing.text.length) break;
    }
    if (sentences.length > 1) {
      paragraphs.push(joinFragments(sentences, ' '));
      length += 2 + paragraphLength;
    }
    section++;
    if (room() < 40) break;
  }
  if (room() >= 0) paragraphs.push(closing);
  const whole = joinFragments(paragraphs, '\n\n');
  // A short class may hold only the opening: it is kept whole (the class's floor is best effort).
  const { text, phi } =
    whole.text.length > maxChars && lengthClass !== 'long' ? trimToSentence(whole, maxChars) : whole;
  return { kind, lengthClass, text, phi };
}

/**
 * The text cut after its last sentence that ends within `maxChars`, never inside an item ("J. Whitfield" holds a
 * full stop and a space); the opening alone is always kept.
 */
function trimToSentence(whole: Fragment, maxChars: number): Fragment {
  const inItem = (at: number): boolean => whole.phi.some((p) => p.start <= at && at < p.end);
  for (let end = maxChars - 1; end > 0; end--) {
    const next = whole.text[end + 1];
    if (whole.text[end] === '.' && (next === ' ' || next === '\n') && !inItem(end)) {
      return truncateFragment(whole, end + 1);
    }
  }
  return truncateFragment(whole, maxChars);
}
