import { describe, expect, it } from 'vitest';
import { SecretMask, redact } from './redact.js';

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

describe('SecretMask', () => {
  it('redacts every secret added, as written, JSON-escaped and URL-encoded', () => {
    const mask = new SecretMask();
    expect(mask.redact('nothing yet s3cr3t/"value"')).toBe('nothing yet s3cr3t/"value"');
    mask.add('s3cr3t/"value"');
    mask.add('tok');
    expect(mask.redact('raw s3cr3t/"value" json s3cr3t/\\"value\\" url s3cr3t%2F%22value%22 tok')).toBe('raw [redacted] json [redacted] url [redacted] tok');
  });
});
