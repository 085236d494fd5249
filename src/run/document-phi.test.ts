import { describe, expect, it } from 'vitest';

import { locateAnnotations } from '../phi/index.js';
import type { SentDocument } from '../texts/index.js';
import { documentPhi } from './document-phi.js';

const text = 'Seen by Ann Lee on 01/02/2020 at the clinic.';
const { planted } = locateAnnotations(text, [
  { text: 'Ann Lee', kind: 'NAME' },
  { text: '01/02/2020', kind: 'DATE' },
]);
const document: SentDocument = {
  text,
  pieces: [{ text, offset: 0 }],
  cuts: [text.indexOf('Lee')],
  phi: planted,
  lengthClass: 'short',
};

describe("a document's known PHI", () => {
  it('counts what the output shows, by kind, length class and straddling, and keeps no text', () => {
    const name = planted[0]!;
    const output = {
      text: text.slice(0, name.start) + '[NAME]' + text.slice(name.end),
      replacements: [{ type: 'NAME', start: name.start, end: name.end, replacement: '[NAME]' }],
    };
    const r = documentPhi(document, [{ type: 'NAME', start: name.start, end: name.end }], output);
    expect(r.phiPlanted).toBe(2);
    expect(r.phi!.overall).toEqual({ planted: 2, found: 1, removed: 1, partlyInClear: 0, inClear: 1 });
    expect(r.phi!.byKind.DATE).toMatchObject({ inClear: 1 });
    expect(r.phi!.byLengthClass.short!.planted).toBe(2);
    expect(r.phi!.straddling).toMatchObject({ planted: 1, removed: 1 });
    expect(JSON.stringify(r)).not.toContain('Ann');
  });

  it('keeps the number planted when there is no output to read, and nothing without ground truth', () => {
    expect(documentPhi(document, undefined, undefined)).toEqual({ phiPlanted: 2, phi: null });
    expect(documentPhi({ ...document, phi: undefined }, [], { text, replacements: [] })).toEqual({
      phiPlanted: null,
      phi: null,
    });
  });
});
