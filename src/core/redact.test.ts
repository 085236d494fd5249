import { describe, expect, it } from 'vitest';
import { redact } from './redact.js';

describe('redact', () => {
  it('replaces every occurrence of each secret', () => {
    expect(redact('token abcdefgh12 and again abcdefgh12; secret s3cr3t-value', ['abcdefgh12', 's3cr3t-value'])).toBe(
      'token [redacted] and again [redacted]; secret [redacted]',
    );
  });

  it('ignores missing and too-short values, which would redact ordinary words', () => {
    expect(redact('the cat sat', [undefined, 'cat'])).toBe('the cat sat');
  });
});
