import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { DOCUMENT_KINDS, generateDocument, LENGTH_CLASS_CHARS, LENGTH_CLASSES, pickWeighted } from './documents.js';

describe('generateDocument', () => {
  it.each(LENGTH_CLASSES)('keeps %s documents inside their class, with the PHI they hold listed', (lengthClass) => {
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

  it('writes each kind in paragraphs under its own title', () => {
    const rng = createRng(2);
    for (const kind of DOCUMENT_KINDS) {
      const doc = generateDocument(rng, { kinds: { [kind]: 1 }, lengths: { long: 1 } });
      expect(doc.kind).toBe(kind);
      expect(doc.text.split('\n\n').length).toBeGreaterThanOrEqual(4);
      expect(doc.text).toMatch(/^(PROGRESS NOTE|DISCHARGE SUMMARY|REFERRAL LETTER)\n\n/);
    }
  });

  it('is repeatable from a seed, and draws kinds and lengths by their weights', () => {
    expect(generateDocument(createRng(9))).toEqual(generateDocument(createRng(9)));
    const rng = createRng(4);
    const counts = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 4000; i++) counts[pickWeighted(rng, { a: 1, b: 3, c: 0 })]++;
    expect(counts.c).toBe(0);
    expect(counts.b / counts.a).toBeGreaterThan(2.5);
    expect(counts.b / counts.a).toBeLessThan(3.5);
    expect(() => pickWeighted(rng, { a: 0 })).toThrow(/no positive weight/);
  });
});
