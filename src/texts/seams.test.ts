import { describe, expect, it } from 'vitest';

import { createRng, nextInt, pick } from '../core/rng.js';
import { FIRST_NAMES, LAST_NAMES } from './lexicon.js';
import { cutIsInsideSentence, SEAM_REACH, seamPieces } from './seams.js';
import { DEFAULT_SPLIT_LIMITS, maxPieceLength, splitDocument } from './split.js';

/** Every span of at most `width` characters is whole in a piece or a seam. */
function uncovered(text: string, width: number): string[] {
  const pieces = splitDocument(text);
  const all = [...pieces, ...seamPieces(text, pieces, maxPieceLength(DEFAULT_SPLIT_LIMITS))];
  const missed: string[] = [];
  for (const cut of pieces.slice(1).map((p) => p.offset)) {
    if (!cutIsInsideSentence(text, cut)) continue;
    for (let from = cut - width + 1; from < cut; from++) {
      const span = [Math.max(0, from), Math.min(text.length, from + width)] as const;
      if (!all.some((p) => p.offset <= span[0] && span[1] <= p.offset + p.text.length))
        missed.push(JSON.stringify(text.slice(...span)));
    }
  }
  return missed;
}

describe('seamPieces', () => {
  it('covers whatever straddles a cut inside a sentence: a list of names without full stops', () => {
    const rng = createRng(3);
    const list = Array.from({ length: 150 }, () => `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`).join(', ');
    expect(splitDocument(list).length).toBeGreaterThan(2);
    expect(uncovered(list, SEAM_REACH)).toEqual([]);
  });

  it('covers CJK and emoji runs without spaces, and never parts a surrogate pair', () => {
    const rng = createRng(9);
    for (let i = 0; i < 50; i++) {
      const text = Array.from({ length: nextInt(rng, 100, 600) }, () =>
        pick(rng, ['患者', '👍🏽', 'é', '山田太郎', ' ', '。']),
      ).join('');
      const pieces = splitDocument(text);
      for (const seam of seamPieces(text, pieces, maxPieceLength(DEFAULT_SPLIT_LIMITS))) {
        expect(text.slice(seam.offset, seam.offset + seam.text.length)).toBe(seam.text);
        expect(seam.text.length).toBeLessThanOrEqual(2 * SEAM_REACH);
        expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(seam.text)).toBe(false);
      }
      expect(uncovered(text, 24)).toEqual([]);
    }
  });

  it('adds none where the cuts fall between paragraphs, lines or sentences', () => {
    const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i} about a patient seen today.`).join(' ');
    expect(splitDocument(text).length).toBeGreaterThan(1);
    expect(seamPieces(text, splitDocument(text), maxPieceLength(DEFAULT_SPLIT_LIMITS))).toEqual([]);
    expect(cutIsInsideSentence('Seen by Dr. ', 12)).toBe(true);
    expect(cutIsInsideSentence('Seen today.\n', 12)).toBe(false);
  });
});
