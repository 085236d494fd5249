import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { findEntities } from '../mock/phi/detect.js';
import { estimateModelTokens, IDENTIFICATION_LIMITS } from '../spec/index.js';
import { generateNote } from './clinical-notes.js';

describe('generateNote', () => {
  it('stays inside the length bounds and the spec token limit, and carries PHI', () => {
    const rng = createRng(11);
    for (let i = 0; i < 300; i++) {
      const note = generateNote(rng, { minChars: 300, maxChars: 2000 });
      expect(estimateModelTokens(note)).toBeLessThanOrEqual(IDENTIFICATION_LIMITS.maxTextTokens);
      expect(note.length).toBeGreaterThanOrEqual(100);
      expect(findEntities(note).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('is repeatable from a seed', () => {
    expect(generateNote(createRng(3))).toBe(generateNote(createRng(3)));
  });
});
