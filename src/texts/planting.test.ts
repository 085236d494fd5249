import { describe, expect, it } from 'vitest';

import { joinFragments, planted, truncateFragment } from './planting.js';

describe('planted fragments', () => {
  it('puts each item where it was planted, not where its text first appears', () => {
    const f = planted(
      (p) => `Allergies: none. Seen by Dr. ${p('NAME', 'Al')} and ${p('NAME', 'Al')}; MRN ${p('MRN', '2093-4471-88')}.`,
    );
    expect(f.text).toBe('Allergies: none. Seen by Dr. Al and Al; MRN 2093-4471-88.');
    expect(f.phi.map((p) => [p.kind, f.text.slice(p.start, p.end), p.start])).toEqual([
      ['NAME', 'Al', 29],
      ['NAME', 'Al', 36],
      ['MRN', '2093-4471-88', 44],
    ]);
  });

  it('moves spans with their fragment when fragments are joined, and is never cut inside an item', () => {
    const a = planted((p) => `Patient ${p('NAME', 'Ann Lee')}.`);
    const b = planted((p) => `Call ${p('PHONE', '555-0100')} or ${p('FAX', '555-0199')}.`);
    const joined = joinFragments([planted(() => 'NOTE'), a, b], '\n\n');
    expect(joined.phi.map((p) => joined.text.slice(p.start, p.end))).toEqual(['Ann Lee', '555-0100', '555-0199']);
    const cut = truncateFragment(joined, joined.text.indexOf('555-0199') + 3);
    expect(cut.text.endsWith(' or ')).toBe(true);
    expect(cut.phi.map((p) => cut.text.slice(p.start, p.end))).toEqual(['Ann Lee', '555-0100']);
  });
});
