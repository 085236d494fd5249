import { describe, expect, it } from 'vitest';

import { createRng } from '../../core/rng.js';
import { generateNote } from '../../texts/index.js';
import { detectPhi } from '../phi/detect.js';
import { identificationJson } from './identification.js';

describe('identificationJson', () => {
  it('writes exactly what JSON.stringify writes for the answer, escapes and all', () => {
    const texts = [
      ...Array.from({ length: 200 }, (_, i) => generateNote(createRng(i + 1))),
      // Entity texts that need escaping, and none at all.
      'Seen by Dr. Smith"\\\u2028 on 01/02/2020; mail "a\\b"@x.io and ja\u00efme@\u00e9x.com, Dr. O\u2029Neil',
      'nothing here',
    ];
    for (const [i, text] of texts.entries()) {
      const detection = detectPhi(text, i % 2 === 0 ? 300 : 30); // some truncated
      const expected = JSON.stringify({
        entities: detection.entities,
        truncated: detection.truncated,
        usage: { input_tokens: 17 + i, output_tokens: detection.outputTokens, output_token_cap: 300 },
      });
      expect(identificationJson(detection, 17 + i, 300)).toBe(expected);
    }
  });

  it('writes an empty list and false when nothing is found', () => {
    expect(JSON.parse(identificationJson({ entities: [], truncated: false, outputTokens: 8 }, 3, 300))).toEqual({
      entities: [],
      truncated: false,
      usage: { input_tokens: 3, output_tokens: 8, output_token_cap: 300 },
    });
  });
});
