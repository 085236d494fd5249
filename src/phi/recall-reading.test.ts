import { describe, expect, it } from 'vitest';

import { locateAnnotations } from './planted.js';
import { textRecall } from './recall.js';

const note = 'Pt John Smith seen.';
const name = locateAnnotations(note, [{ text: 'John Smith', kind: 'NAME' }]).planted;

/** The fate of the name in `note` when one replacement over it wrote `replacement`. */
function fateOfRewrittenName(replacement: string): string {
  const output = { text: `Pt ${replacement} seen.`, replacements: [{ start: 3, end: 13, replacement }] };
  const r = textRecall({ text: note, planted: name, entities: [{ start: 3, end: 13 }], output, cuts: [] });
  expect(r.method).toBe('aligned');
  return r.items[0]!.fate;
}

describe('textRecall, by the replacements: what a replacement over the item writes back', () => {
  it('reads part of the item written back as partly in clear', () => {
    expect(fateOfRewrittenName('John [NAME]')).toBe('partlyInClear');
  });

  it('reads the item written back in other case or order as in clear', () => {
    expect(fateOfRewrittenName('JOHN SMITH')).toBe('inClear');
    expect(fateOfRewrittenName('[NAME] (Smith, John)')).toBe('inClear');
  });

  it('reads a tag that merely contains the letters of a word as removed', () => {
    expect(fateOfRewrittenName('[JOHNSMITH-1]')).toBe('removed');
    expect(fateOfRewrittenName('[NAME]')).toBe('removed');
  });

  it('reads a tag naming the kind as no write-back, though the item holds that word', () => {
    const text = 'Study subject ID-7526-66.';
    const id = { kind: 'ID' as const, start: 14, end: 24 };
    const read = (replacement: string): string => {
      const output = { text: `Study subject ${replacement}.`, replacements: [{ start: 14, end: 24, replacement }] };
      return textRecall({ text, planted: [id], entities: [id], output, cuts: [] }).items[0]!.fate;
    };
    expect(read('[ID]')).toBe('removed');
    expect(read('ID-7526-66')).toBe('inClear');
    expect(read('[ID]-7526')).toBe('partlyInClear');
  });
});

describe('textRecall, by the output words (no usable replacements)', () => {
  it('does not read an age as in clear because its digits are inside another number', () => {
    const text = 'A 92-year-old, weight 192 lb.';
    const { planted } = locateAnnotations(text, [{ text: '92', kind: 'AGE' }]);
    expect(planted).toHaveLength(1);
    const output = { text: 'A [AGE]-year-old, weight 192 lb.' };
    const r = textRecall({ text, planted, entities: [{ start: 2, end: 4 }], output, cuts: [] });
    expect(r.method).toBe('text');
    expect(r.items[0]!.fate).toBe('removed');
  });

  it('still reads a whole value shown as a whole word as in clear', () => {
    const text = 'A 92-year-old.';
    const { planted } = locateAnnotations(text, [{ text: '92', kind: 'AGE' }]);
    const r = textRecall({ text, planted, entities: [], output: { text: 'A 92-year-old.' }, cuts: [] });
    expect(r.items[0]!.fate).toBe('inClear');
  });

  it('does not read a date as partly in clear because another number shares its year', () => {
    const text = 'Seen 03/14/2021; HbA1c 7.1 in 2021.';
    const { planted } = locateAnnotations(text, [{ text: '03/14/2021', kind: 'DATE' }]);
    const output = { text: 'Seen [DATE]; HbA1c 7.1 in 2021.' };
    const r = textRecall({ text, planted, entities: [{ start: 5, end: 15 }], output, cuts: [] });
    expect(r.items[0]!.fate).toBe('removed');
  });

  it('sees a name written in NFC when the input was NFD, whole or in part', () => {
    const text = 'Pt Jose\u0301 Pe\u0301rez seen.';
    const { planted } = locateAnnotations(text, [{ text: 'Jose\u0301 Pe\u0301rez', kind: 'NAME' }]);
    const whole = { text: 'Pt Jos\u00e9 P\u00e9rez seen.' };
    const half = { text: 'Pt [NAME] P\u00e9rez seen.' };
    const read = (output: { text: string }): string =>
      textRecall({ text, planted, entities: [], output, cuts: [] }).items[0]!.fate;
    expect(read(whole)).toBe('inClear');
    expect(read(half)).toBe('partlyInClear');
  });
});
