import { describe, expect, it } from 'vitest';

import { createRng } from '../../core/index.js';
import { textRecall } from '../../phi/index.js';
import { generateDocument } from '../../texts/index.js';
import { findEntities } from './detect.js';

/** Planted NAME/ADDRESS items the detector's entities cover in part only, as "KIND «item» ⊂ «covered parts»". */
function partlyCovered(seed: number, documents: number): string[] {
  const rng = createRng(seed);
  const partial: string[] = [];
  for (let d = 0; d < documents; d++) {
    const doc = generateDocument(rng);
    const entities = findEntities(doc.text);
    const planted = doc.phi.filter((p) => p.kind === 'NAME' || p.kind === 'ADDRESS');
    const { items } = textRecall({ text: doc.text, planted, entities, output: { text: '' }, cuts: [] });
    items.forEach((item, i) => {
      if (item.found) return;
      const p = planted[i]!;
      const covered = entities.filter((e) => e.start < p.end && e.end > p.start);
      if (covered.length === 0) return;
      const parts = covered.map((e) => doc.text.slice(Math.max(e.start, p.start), Math.min(e.end, p.end)));
      partial.push(`${p.kind} «${doc.text.slice(p.start, p.end)}» ⊂ «${parts.join('|')}»`);
    });
  }
  return partial;
}

describe('the mock detector on generated documents', () => {
  it('never covers a planted name or address only in part (a name run, its credential, an address with its number and unit)', () => {
    expect(partlyCovered(3, 300)).toEqual([]);
  });
});
