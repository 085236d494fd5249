import { describe, expect, it } from 'vitest';

import { obfuscate, parseObfuscationRequest } from './obfuscate.js';

describe('obfuscate', () => {
  const text = 'Seen John Smith on 04/12/2026.';
  const entities = [
    { type: 'DATE', start: 19, end: 29 },
    { type: 'NAME', start: 5, end: 15 },
  ];

  it('replaces each span by a tag of its type, in text order, with output offsets', () => {
    const request = parseObfuscationRequest({ text, entities });
    if ('problems' in request) throw new Error(request.problems.join('; '));
    const result = obfuscate(request);
    expect(result.text).toBe('Seen [NAME] on [DATE].');
    expect(result.replacements).toEqual([
      { type: 'NAME', start: 5, end: 15, outputStart: 5, outputEnd: 11, replacement: '[NAME]' },
      { type: 'DATE', start: 19, end: 29, outputStart: 15, outputEnd: 21, replacement: '[DATE]' },
    ]);
  });

  it('masks with asterisks of the same length when asked', () => {
    const request = parseObfuscationRequest({ text, entities, style: 'mask' });
    if ('problems' in request) throw new Error(request.problems.join('; '));
    expect(obfuscate(request).text).toBe('Seen ********** on **********.');
  });

  it('reports every problem with its field, value and what was expected', () => {
    const result = parseObfuscationRequest({
      text: 'short',
      style: 'blur',
      entities: [
        { type: 'NAME', start: 0, end: 9 },
        { type: '', start: -1, end: 2 },
        'x',
        { type: 'A', start: 0, end: 2 },
        { type: 'B', start: 1, end: 3 },
      ],
    });
    expect(result).toEqual({
      problems: [
        'style: expected one of tag, mask, got "blur"',
        'entities[0].end: expected an integer in (start, text length], got 9',
        'entities[1].type: expected a non-empty string, got ""',
        'entities[1].start: expected an integer in [0, text length), got -1',
        'entities[2]: expected an object {type, start, end}, got "x"',
        'entities: spans overlap at offsets 0–2 and 1–3',
      ],
    });
  });

  it('refuses more than 10,000 entities, the number its body cap is sized for', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'X', start: i, end: i + 1 }));
    const text = 'a'.repeat(10_001);
    expect('problems' in parseObfuscationRequest({ text, entities: many(10_000) })).toBe(false);
    expect(parseObfuscationRequest({ text, entities: many(10_001) })).toEqual({
      problems: ['entities: expected at most 10000 entities, got 10001'],
    });
  });
});

describe('spans and surrogate pairs', () => {
  it('refuses a span that splits a character outside the BMP, naming the entity and the offset, even with no text', () => {
    const text = 'a😀b'; // the emoji is UTF-16 units 1 and 2
    expect(parseObfuscationRequest({ text, entities: [{ type: 'X', start: 2, end: 4 }] })).toEqual({
      problems: [
        'entities[0].start: offset 2 splits a surrogate pair (one character outside the BMP, such as an emoji); expected an offset on a character boundary',
      ],
    });
    expect('problems' in parseObfuscationRequest({ text, entities: [{ type: 'X', start: 1, end: 3 }] })).toBe(false);
    expect(parseObfuscationRequest({ text: null, entities: [{ type: 'X', start: 1, end: 2 }] })).toEqual({
      problems: ['text: expected a string, got null'],
    });
  });
});
