/**
 * Synthetic clinical documents as a product sends them for de-identification: progress notes,
 * discharge summaries and referral letters, in paragraphs, of a length class a scenario chooses
 * (short, typical, near the identification limit, or long enough to need splitting). Every piece of
 * fake PHI put in is listed with the document, so a test can check that none of it survives
 * obfuscation. Generated from a seed; no real patient data anywhere.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import { IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import {
  BODY,
  type InjectedPhiType,
  isoDate,
  longDate,
  OPENERS,
  person,
  type PhiSink,
  phone,
  type SentenceMaker,
  usDate,
} from './clinical-notes.js';
import { LAST_NAMES } from './lexicon.js';

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

interface InjectedPhi {
  readonly type: InjectedPhiType;
  readonly value: string;
}

interface SyntheticDocument {
  readonly kind: DocumentKind;
  readonly lengthClass: LengthClass;
  readonly text: string;
  /** Every piece of PHI put in, in order (a value may repeat). */
  readonly phi: readonly InjectedPhi[];
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

/** The section headings of each kind, in order; body sentences fill them. */
const SECTIONS: Readonly<Record<DocumentKind, readonly string[]>> = {
  progress: ['Subjective', 'Objective', 'Assessment', 'Plan'],
  discharge: ['Hospital course', 'Condition at discharge', 'Discharge medications', 'Follow-up'],
  referral: ['Reason for referral', 'History', 'Current treatment', 'Request'],
};

/** The first paragraph of each kind: who the document is about. */
const OPENING: Readonly<Record<DocumentKind, SentenceMaker>> = {
  progress: (r, p) => pick(r, OPENERS)(r, p),
  discharge: (r, p) => `${person(r, p)} was admitted on ${usDate(r, p)} and discharged on ${longDate(r, p)}.`,
  referral: (r, p) =>
    `Dear ${p('NAME', `Dr. ${pick(r, LAST_NAMES)}`)}, I am referring ${person(r, p)}, born ${usDate(r, p)}, for your opinion.`,
};

/** The closing line of each kind. */
const CLOSING: Readonly<Record<DocumentKind, SentenceMaker>> = {
  progress: (r, p) => `Electronically signed by ${p('NAME', `Dr. ${pick(r, LAST_NAMES)}`)} on ${isoDate(r, p)}.`,
  discharge: (r, p) => `Dictated by ${person(r, p)}; questions to the ward at ${phone(r, p)}.`,
  referral: (r, p) => `Yours sincerely, ${p('NAME', `Dr. ${pick(r, LAST_NAMES)}`)}, telephone ${phone(r, p)}.`,
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
 * (lengthClassChars).
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
  const phi: InjectedPhi[] = [];
  const sink: PhiSink = (type, value) => {
    phi.push({ type, value });
    return value;
  };
  // Drawn into a scratch list first, so that what a sentence injected is kept only if the sentence is.
  const draw = (maker: SentenceMaker): { text: string; phi: InjectedPhi[] } => {
    const drawn: InjectedPhi[] = [];
    const text = maker(rng, (type, value) => {
      drawn.push({ type, value });
      return value;
    });
    return { text, phi: drawn };
  };
  const closing = draw(CLOSING[kind]);
  const paragraphs: string[] = [TITLES[kind], OPENING[kind](rng, sink)];
  let length = paragraphs.join('\n\n').length;
  // Room for the closing line, when it fits in the class at all.
  const room = (): number => maxChars - length - (closing.text.length + 2);
  const sections = SECTIONS[kind];
  for (let section = 0, attempts = 0; attempts < 400 && length < target - closing.text.length; attempts++) {
    const heading = `${sections[section % sections.length]}:`;
    let paragraph = heading;
    const sentences = nextInt(rng, 2, 5);
    for (let i = 0; i < sentences && attempts < 400; i++, attempts++) {
      const sentence = draw(pick(rng, BODY));
      if (length + 2 + paragraph.length + 1 + sentence.text.length > maxChars - closing.text.length - 2) continue;
      paragraph = `${paragraph} ${sentence.text}`;
      phi.push(...sentence.phi);
      if (length + 2 + paragraph.length >= target - closing.text.length) break;
    }
    if (paragraph !== heading) {
      paragraphs.push(paragraph);
      length += 2 + paragraph.length;
    }
    section++;
    if (room() < 40) break;
  }
  if (room() >= 0) {
    paragraphs.push(closing.text);
    phi.push(...closing.phi);
  }
  let text = paragraphs.join('\n\n');
  // A short class may hold only the opening: it is kept whole (the class's floor is best effort).
  if (text.length > maxChars && lengthClass !== 'long') text = trimToSentence(text, maxChars);
  return { kind, lengthClass, text, phi: phi.filter((x) => text.includes(x.value)) };
}

/** The text cut after its last sentence that ends within `maxChars` (the opening alone is always kept). */
function trimToSentence(text: string, maxChars: number): string {
  const cut = text.slice(0, maxChars);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.\n'));
  return end > 0 ? cut.slice(0, end + 1) : cut;
}
