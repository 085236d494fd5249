import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { PHI_KINDS, type PhiKind } from '../phi/index.js';
import {
  DEFAULT_DOCUMENT_MIX,
  DOCUMENT_KINDS,
  generateDocument,
  LENGTH_CLASS_CHARS,
  LENGTH_CLASSES,
  pickWeighted,
} from './documents.js';
import { cutIsInsideSentence } from './seams.js';
import { maxPieceLength, splitDocument } from './split.js';

describe('generateDocument', () => {
  it.each(LENGTH_CLASSES)('keeps %s documents inside their class, each with PHI planted in it', (lengthClass) => {
    const rng = createRng(5);
    const [min, max] = LENGTH_CLASS_CHARS[lengthClass];
    for (let i = 0; i < 150; i++) {
      const doc = generateDocument(rng, {
        kinds: { progress: 1, discharge: 1, referral: 1 },
        lengths: { [lengthClass]: 1 },
      });
      expect(doc.lengthClass).toBe(lengthClass);
      expect(doc.text.length).toBeGreaterThanOrEqual(lengthClass === 'short' ? 80 : min);
      expect(doc.text.length).toBeLessThanOrEqual(max);
      expect(doc.phi.length).toBeGreaterThanOrEqual(2);
    }
  });

  it('gives every item planted as a span of the final text: the value put there, in order, none overlapping, every kind', () => {
    const rng = createRng(17);
    const kinds = new Set<string>();
    const spellings = { hyphen: 0, apostrophe: 0, suffix: 0, initial: 0, unit: 0, ipv6: 0, mbi: 0, dashedMrn: 0 };
    for (let i = 0; i < 1000; i++) {
      // Small pieces make short classes trim (the trim must keep spans whole) and long ones split.
      const doc = generateDocument(rng, DEFAULT_DOCUMENT_MIX, i % 2 === 0 ? 853 : 300);
      let previousEnd = 0;
      for (const p of doc.phi) {
        const value = doc.text.slice(p.start, p.end);
        expect(p.start, `${p.kind} ${value}`).toBeGreaterThanOrEqual(previousEnd);
        expect(p.end).toBeLessThanOrEqual(doc.text.length);
        expect(value).toBe(value.trim());
        expect(value).not.toMatch(/[\uE000\uE001]/);
        expect(value.length).toBeGreaterThan(0);
        expect(looksLike(p.kind, value), `${p.kind} ${JSON.stringify(value)}`).toBe(true);
        kinds.add(p.kind);
        previousEnd = p.end;
        if (p.kind === 'NAME' && /\w-\w/.test(value)) spellings.hyphen++;
        if (p.kind === 'NAME' && value.includes("'")) spellings.apostrophe++;
        if (p.kind === 'NAME' && / (Jr\.|Sr\.|III)$/.test(value)) spellings.suffix++;
        if (p.kind === 'NAME' && / [A-Z]\. /.test(value)) spellings.initial++;
        if (p.kind === 'ADDRESS' && /(Apt\.|Suite|Unit) /.test(value)) spellings.unit++;
        if (p.kind === 'IP' && value.includes(':')) spellings.ipv6++;
        if (p.kind === 'HEALTH_PLAN' && /^[1-9][A-Z][A-Z0-9]\d-[A-Z][A-Z0-9]\d-[A-Z]{2}\d\d$/.test(value))
          spellings.mbi++;
        if (p.kind === 'MRN' && /^\d{4}-\d{4}-\d\d$/.test(value)) spellings.dashedMrn++;
      }
      // No title is part of a name; a state is never an item.
      for (const p of doc.phi) expect(doc.text.slice(p.start, p.end)).not.toMatch(/^Dr\.|, MD$/);
    }
    expect([...kinds].sort()).toEqual([...PHI_KINDS].sort());
    for (const [spelling, count] of Object.entries(spellings)) expect(count, spelling).toBeGreaterThan(0);
  });

  it('draws the same documents from the same seed, and others from another seed', () => {
    const draw = (seed: number) => {
      const rng = createRng(seed);
      return Array.from({ length: 20 }, () => generateDocument(rng));
    };
    expect(draw(9)).toEqual(draw(9));
    const [a, b] = [draw(9), draw(10)];
    expect(a.map((d) => d.text)).not.toEqual(b.map((d) => d.text));
  });

  it('writes each kind in paragraphs under its own title', () => {
    const rng = createRng(2);
    for (const kind of DOCUMENT_KINDS) {
      const doc = generateDocument(rng, { kinds: { [kind]: 1 }, lengths: { long: 1 } });
      expect(doc.kind).toBe(kind);
      expect(doc.text.split('\n\n').length).toBeGreaterThanOrEqual(4);
      expect(doc.text).toMatch(/^(PROGRESS NOTE|DISCHARGE SUMMARY|REFERRAL LETTER)\n\n/);
    }
  });

  it.each([0.1, 0.3])(
    'writes long documents with run-on lines the split (margin %s) must cut inside, so that items straddle cuts',
    (margin) => {
      const rng = createRng(7);
      const limits = { maxTokens: 1024, margin };
      let cutInsideALine = 0;
      let straddling = 0;
      for (let i = 0; i < 300; i++) {
        const mix = { kinds: DEFAULT_DOCUMENT_MIX.kinds, lengths: { long: 1 } };
        const doc = generateDocument(rng, mix, maxPieceLength(limits));
        const cuts = splitDocument(doc.text, limits)
          .slice(1)
          .map((p) => p.offset);
        const inside = cuts.filter((at) => cutIsInsideSentence(doc.text, at));
        if (inside.length > 0) cutInsideALine++;
        const crossing = doc.phi.filter((p) => cuts.some((at) => p.start < at && at < p.end));
        straddling += crossing.length;
        // An item crosses only a cut inside a line: the cuts the seams carry whole.
        for (const p of crossing) expect(inside.some((at) => p.start < at && at < p.end)).toBe(true);
      }
      // Some long documents, not all, hold such a line.
      expect(cutInsideALine).toBeGreaterThan(300 * 0.3);
      expect(cutInsideALine).toBeLessThan(300 * 0.7);
      expect(straddling).toBeGreaterThan(0);
    },
  );

  it('is repeatable from a seed, and draws kinds and lengths by their weights', () => {
    const rng = createRng(4);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) counts[pickWeighted(rng, { a: 1, b: 3, c: 0 })]++;
    expect(counts.c).toBe(0);
    expect(counts.b / counts.a).toBeGreaterThan(2.5);
    expect(counts.b / counts.a).toBeLessThan(3.5);
    expect(() => pickWeighted(rng, { a: 0 })).toThrow(/no positive weight/);
  });
});

/** What an item of each kind looks like: a check that spans hold what was planted, not a neighbour's text. */
function looksLike(kind: PhiKind, value: string): boolean {
  const shapes: Record<PhiKind, RegExp> = {
    NAME: /^\p{Lu}[\p{L}.' -]*\p{L}\.?$|^\p{Lu}[\p{L}.' -]* (II|III|IV)$/u,
    ADDRESS: /^(\d+ .+|\p{Lu}[\p{L} .'-]+)$/u,
    ZIP: /^\d{5}(-\d{4})?$/,
    DATE: /^(\d{4}-\d\d-\d\d|\d{1,2}\/\d{1,2}\/\d{2,4}|[A-Z][a-z]+ \d{1,2}, \d{4}|\d{1,2}[ -][A-Z][a-z]{2}[ -]\d{4})$/,
    AGE: /^(9\d|1\d\d)$/,
    PHONE: /^(\(\d{3}\) |\d{3}[-.])\d{3}[-.]\d{4}$/,
    FAX: /^(\(\d{3}\) |\d{3}[-.])\d{3}[-.]\d{4}$/,
    EMAIL: /^[^@\s]+@[^@\s]+\.[a-z]+$/,
    SSN: /^\d{3}-\d\d-\d{4}$/,
    MRN: /^[A-Z0-9]+(-[0-9]+)*$/,
    HEALTH_PLAN: /^[A-Z0-9]+(-[A-Z0-9]+)*$/,
    ACCOUNT: /^[A-Z0-9]+(-[0-9]+)*$/,
    LICENSE: /^[A-Z0-9]+(-[0-9]+)*$/,
    VEHICLE: /^[A-Z0-9]+(-[A-Z0-9]+)?$/,
    DEVICE: /^[A-Z0-9]+(-\d+)?$/,
    URL: /^https?:\/\/\S+$/,
    IP: /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f]{4}(:[0-9a-f]{4}){7})$/,
    ID: /^[A-Z]{2}-\d{4}-\d\d$/,
  };
  return shapes[kind].test(value);
}
