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

  it('keeps the tokens of a long run to the most recent few, so its cost per line stays bounded', () => {
    const mask = new SecretMask();
    mask.add('the-client-secret');
    for (let i = 0; i < 1000; i++) mask.addToken(`lpmock_at_token_number_${i}`);
    expect(mask.size).toBeLessThanOrEqual(3 * (1 + SecretMask.RECENT_TOKENS));
    expect(mask.redact('the-client-secret lpmock_at_token_number_999')).toBe('[redacted] [redacted]');
  });
});
