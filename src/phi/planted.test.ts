import { describe, expect, it } from 'vitest';

import { locateAnnotations } from './planted.js';

describe('locateAnnotations: one item per span', () => {
  it('keeps one item for a text annotated under two kinds: the first annotation`s kind', () => {
    const { planted } = locateAnnotations('MRN 2093447188 on file.', [
      { text: '2093447188', kind: 'MRN' },
      { text: '2093447188', kind: 'ACCOUNT' },
    ]);
    expect(planted).toEqual([{ kind: 'MRN', start: 4, end: 14 }]);
  });

  it('keeps a text inside a longer annotation`s occurrence only where it stands apart', () => {
    const text = 'Ann Lee came; Lee signed.';
    const { planted, missing } = locateAnnotations(text, [
      { text: 'Lee', kind: 'NAME' },
      { text: 'Ann Lee', kind: 'NAME' },
    ]);
    expect(planted).toEqual([
      { kind: 'NAME', start: 0, end: 7 },
      { kind: 'NAME', start: 14, end: 17 },
    ]);
    expect(missing).toEqual([]);
  });

  it('keeps an annotation found only inside a longer one as held, not missing', () => {
    const { planted, missing } = locateAnnotations('Ann Lee came.', [
      { text: 'Ann Lee', kind: 'NAME' },
      { text: 'Lee', kind: 'NAME' },
    ]);
    expect(planted).toEqual([{ kind: 'NAME', start: 0, end: 7 }]);
    expect(missing).toEqual([]);
  });
});
