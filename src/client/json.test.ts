import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { generateNote } from '../texts/index.js';
import { textBody, textBodyBytes } from './json.js';

describe('the identification body', () => {
  it('is exactly JSON.stringify({ text }), with its UTF-8 length (and as bytes), for plain and for awkward texts', () => {
    const rng = createRng(5);
    const texts = [
      '',
      'plain',
      'a "quoted" word',
      'back\\slash',
      'tab\there, new\nline, bell\u0007, del\u007f',
      'non-ASCII: fünf, 漢字, emoji 🙂, a lone surrogate \ud800 here',
      '\u2028 and \u2029',
      ...Array.from({ length: 200 }, () => generateNote(rng)),
    ];
    for (const text of texts) {
      const expected = JSON.stringify({ text });
      expect(textBody(text)).toEqual({ body: expected, bytes: Buffer.byteLength(expected) });
      expect(textBodyBytes(text)).toEqual(Buffer.from(expected));
    }
  });
});
