import { describe, expect, it } from 'vitest';

import { createRng, nextInt, pick, type Rng } from '../core/rng.js';
import { estimateModelTokens } from '../spec/index.js';
import { cutIsInsideSentence } from './seams.js';
import { DEFAULT_SPLIT_LIMITS, type Piece, pieceTokenBudget, splitDocument, type SplitLimits } from './split.js';

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The length of the grapheme cluster (Intl.Segmenter's) that `cut` falls inside, or 0 when it falls
 * between two. The segmenter copies its input into every segment, so it is given a window around the
 * cut, widened while the cluster reaches the window's edge and may still be under `atLeast`.
 */
function clusterAround(text: string, cut: number, atLeast: number): number {
  for (let w = 64; ; w *= 4) {
    const from = Math.max(0, cut - w);
    const to = Math.min(text.length, cut + w);
    for (const { index, segment } of GRAPHEMES.segment(text.slice(from, to))) {
      const start = from + index;
      const end = start + segment.length;
      if (start >= cut) return 0;
      if (end <= cut) continue;
      const cutShort = (start === from && from > 0) || (end === to && to < text.length);
      if (!cutShort || w > atLeast) return cutShort ? Number.POSITIVE_INFINITY : segment.length;
      break;
    }
  }
}

/** Every property a split must have; returns the list of what it broke (empty when none). */
function problems(text: string, pieces: readonly Piece[], limits: SplitLimits): string[] {
  const found: string[] = [];
  const budget = pieceTokenBudget(limits);
  if (pieces.map((p) => p.text).join('') !== text) found.push('the pieces do not concatenate back to the document');
  let at = 0;
  for (const [i, p] of pieces.entries()) {
    if (p.text.length === 0) found.push(`piece ${i} is empty`);
    if (p.offset !== at) found.push(`piece ${i}: offset ${p.offset}, expected ${at}`);
    if (text.slice(p.offset, p.offset + p.text.length) !== p.text)
      found.push(`piece ${i}: its text is not the document's at its offset`);
    if (estimateModelTokens(p.text) > budget)
      found.push(`piece ${i}: ${estimateModelTokens(p.text)} tokens, over ${budget}`);
    at += p.text.length;
  }
  // Every cut: never inside a surrogate pair; inside a word or a grapheme cluster only when it alone is over the limit.
  const maxChars = Math.floor(budget / 1.2);
  for (const p of pieces.slice(1)) {
    const cut = p.offset;
    if (isHigh(text.charCodeAt(cut - 1)) && isLow(text.charCodeAt(cut)))
      found.push(`cut at ${cut} parts a surrogate pair`);
    if (!isSpace(text[cut - 1]) && !isSpace(text[cut])) {
      let start = cut;
      let end = cut;
      while (start > 0 && !isSpace(text[start - 1])) start--;
      while (end < text.length && !isSpace(text[end])) end++;
      if (end - start <= maxChars)
        found.push(
          `cut at ${cut} is inside the word ${JSON.stringify(text.slice(start, end).slice(0, 40))} (${end - start} characters), which fits`,
        );
      const cluster = clusterAround(text, cut, maxChars);
      if (cluster > 0 && cluster <= maxChars) found.push(`cut at ${cut} is inside a grapheme cluster that fits`);
    }
  }
  return found;
}

/**
 * Random documents with every kind of text a user may send: prose, accents, combining marks, emoji, CJK, odd spaces,
 * very long tokens.
 */
function randomDocument(rng: Rng): string {
  const words: (() => string)[] = [
    () =>
      pick(rng, [
        'Patient',
        'seen',
        'on',
        'with',
        'Dr. Smith',
        'Mr. Jones',
        'BP',
        '120/80',
        'e.g. rest',
        'MRN: 12345678',
      ]),
    () => 'ab'.repeat(nextInt(rng, 1, 6)),
    () => 'e\u0301'.repeat(nextInt(rng, 1, 5)), // combining acute accents
    () => '👍🏽'.repeat(nextInt(rng, 1, 4)), // surrogate pairs with a skin-tone modifier
    () => '👩‍👩‍👧'.repeat(nextInt(rng, 1, 3)), // ZWJ sequences
    () => '病历记录'.repeat(nextInt(rng, 1, 50)), // no whitespace at all
    () => 'x'.repeat(nextInt(rng, 700, 2500)), // one token longer than the limit
    () => 'a\u0301\u0302\u0303'.repeat(nextInt(rng, 1, 3)),
    () => `${pick(rng, ['End', 'Stop', 'Done'])}${pick(rng, ['.', '!', '?', '."', '.)'])}`,
  ];
  const spaces = [
    ' ',
    ' ',
    ' ',
    '  ',
    '\t',
    '\n',
    '\n\n',
    '\r\n',
    '\r\n\r\n',
    '\u00a0',
    '\u3000',
    ' '.repeat(nextInt(rng, 1, 1200)),
  ];
  const n = nextInt(rng, 0, 200);
  let text = rng.next() < 0.1 ? pick(rng, spaces) : '';
  for (let i = 0; i < n; i++) text += pick(rng, words)() + (rng.next() < 0.97 ? pick(rng, spaces) : '');
  return text;
}

describe('splitDocument', () => {
  it('keeps a text under the limit whole, and gives an empty text no pieces', () => {
    expect(splitDocument('Patient John Smith, seen today.')).toEqual([
      { text: 'Patient John Smith, seen today.', offset: 0 },
    ]);
    expect(splitDocument('')).toEqual([]);
  });

  it('cuts between paragraphs first, packing as many whole ones as fit', () => {
    const paragraph = (n: number): string => `Paragraph ${n}. ${'Words in a sentence. '.repeat(15).trim()}`;
    const text = [1, 2, 3, 4].map(paragraph).join('\n\n');
    const pieces = splitDocument(text);
    expect(problems(text, pieces, DEFAULT_SPLIT_LIMITS)).toEqual([]);
    // 4 paragraphs of 326 characters, 2 to a piece of at most 767.
    expect(pieces.map((p) => p.text.trimEnd())).toEqual([
      `${paragraph(1)}\n\n${paragraph(2)}`,
      `${paragraph(3)}\n\n${paragraph(4)}`,
    ]);
  });

  it('cuts a paragraph over the limit between sentences, and never parts a title from its name', () => {
    const text = `${'Dr. Smith saw the patient. '.repeat(60)}`;
    const pieces = splitDocument(text);
    expect(problems(text, pieces, DEFAULT_SPLIT_LIMITS)).toEqual([]);
    for (const p of pieces) expect(p.text).toMatch(/^Dr\. Smith saw the patient\.( Dr\. Smith saw the patient\.)* ?$/);
  });

  it('never cuts after a middle initial or "Apt.", where a name or an address goes on; the seams check the same', () => {
    const text = 'Contacts: ' + 'Kolby U. Fritsch (son) 599-473-7621; 12 Oak Rd Apt. 4, Dover; '.repeat(40);
    const pieces = splitDocument(text);
    expect(problems(text, pieces, DEFAULT_SPLIT_LIMITS)).toEqual([]);
    for (const p of pieces.slice(1)) {
      // No sentence ends in the line: every cut falls between words, where the seams cover it.
      expect(cutIsInsideSentence(text, p.offset)).toBe(true);
    }
    expect(cutIsInsideSentence('Kolby U. ', 9)).toBe(true);
    expect(cutIsInsideSentence('12 Oak Rd Apt. ', 15)).toBe(true);
    expect(cutIsInsideSentence('on vitamin D. ', 14)).toBe(true);
    expect(cutIsInsideSentence('Seen today. ', 12)).toBe(false);
  });

  it('cuts a word only when it alone is over the limit, and then between grapheme clusters', () => {
    const text = `short words then ${'👍🏽'.repeat(400)} and more`;
    const pieces = splitDocument(text);
    expect(problems(text, pieces, DEFAULT_SPLIT_LIMITS)).toEqual([]);
    expect(pieces.length).toBeGreaterThan(2);
  });

  it('honours the margin: a larger margin makes smaller pieces', () => {
    const text = 'Sentence of some length here. '.repeat(100);
    const tight = { maxTokens: 1024, margin: 0.5 };
    const pieces = splitDocument(text, tight);
    expect(problems(text, pieces, tight)).toEqual([]);
    expect(Math.max(...pieces.map((p) => estimateModelTokens(p.text)))).toBeLessThanOrEqual(512);
    expect(pieces.length).toBeGreaterThan(splitDocument(text).length);
  });

  it('refuses limits that cannot hold a piece', () => {
    expect(() => splitDocument('abc', { maxTokens: 0, margin: 0 })).toThrow(/maxTokens > 0/);
    expect(() => splitDocument('abc', { maxTokens: 1024, margin: 1 })).toThrow(/margin < 1/);
    expect(() => splitDocument('abc', { maxTokens: 2, margin: 0 })).toThrow(/holds no character pair/);
  });

  it('holds every property on 300 random documents of every kind of text (seeded)', () => {
    const rng = createRng(20261126);
    for (let i = 0; i < 300; i++) {
      const text = randomDocument(rng);
      const limits =
        rng.next() < 0.5 ? DEFAULT_SPLIT_LIMITS : { maxTokens: nextInt(rng, 8, 2048), margin: rng.next() * 0.5 };
      const broken = problems(text, splitDocument(text, limits), limits);
      expect(broken, `document ${i} (${text.length} characters), limits ${JSON.stringify(limits)}`).toEqual([]);
    }
  });

  it('holds on adversarial inputs: no whitespace, only whitespace, one huge cluster, lone surrogates', () => {
    const cases = [
      'x'.repeat(10_000),
      ' '.repeat(5_000),
      '\n'.repeat(3_000),
      `a${'\u0301'.repeat(2_000)}`, // one grapheme cluster longer than the limit
      '\ud83d'.repeat(900) + '\ude00'.repeat(900), // lone high then lone low surrogates
      '👍'.repeat(2_000),
      `${'word '.repeat(300)}${'y'.repeat(800)}`, // a word of 800 that fits only alone
    ];
    for (const text of cases)
      expect(problems(text, splitDocument(text), DEFAULT_SPLIT_LIMITS), text.slice(0, 20)).toEqual([]);
  });
});
