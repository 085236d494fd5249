import { describe, expect, it } from 'vitest';

import { canonicalText } from './canonical-text.js';
import { SecretMask } from './redact.js';

const SECRET = 'S3cr3tVal-xyz_Q9';

describe('canonicalText', () => {
  it('drops invisible characters and undoes \\u escapes, entities and percent-encoding, layer by layer', () => {
    expect(canonicalText('S3cr3t\u200bVal\u2060-xyz\ufeff_Q9')).toBe(SECRET);
    expect(canonicalText('\\u0053\\\\u0033cr')).toBe('S3cr');
    expect(canonicalText('&#83;&#x33;&amp;&lt;')).toBe('S3&<');
    expect(canonicalText('%53%33%C3%A9')).toBe('S3é');
    // Percent-encoded twice, an entity percent-encoded: each round undoes one layer.
    expect(canonicalText('%2553 %26%2383;')).toBe('S S');
  });

  it('leaves ordinary text and what decodes to nothing as it was', () => {
    expect(canonicalText('100 % full; a&b; \\user')).toBe('100 % full; a&b; \\user');
    expect(canonicalText('&#99999999;')).toBe('&#99999999;');
  });
});

describe('SecretMask.redactPieces', () => {
  it('masks a piece of 8 or more characters of a secret or token, and leaves shorter ones', () => {
    const mask = new SecretMask();
    mask.add(SECRET);
    mask.addToken('lpmock_at_abcdefghijklmnop');
    expect(mask.redactPieces(`a ${SECRET.slice(0, 6)} ${SECRET.slice(6)} b`)).toBe('a S3cr3t [redacted] b');
    expect(mask.redactPieces('x at_abcdefgh y')).toBe('x [redacted] y');
    expect(mask.redactPieces('S3cr3tV')).toBe('S3cr3tV');
  });
});
