import { describe, expect, it } from 'vitest';

import { redact, redactWritten, secretForms, SecretMask } from './redact.js';

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
    expect(mask.redact('raw s3cr3t/"value" json s3cr3t/\\"value\\" url s3cr3t%2F%22value%22 tok')).toBe(
      'raw [redacted] json [redacted] url [redacted] tok',
    );
  });

  it('keeps the tokens of a long run to the most recent few, so its cost per line stays bounded', () => {
    const mask = new SecretMask();
    mask.add('the-client-secret');
    for (let i = 0; i < 1000; i++) mask.addToken(`lpmock_at_token_number_${i}`);
    const perToken = secretForms('lpmock_at_token_number_999').length;
    expect(mask.size).toBeLessThanOrEqual(
      secretForms('the-client-secret').length + perToken * SecretMask.RECENT_TOKENS,
    );
    expect(mask.redact('the-client-secret lpmock_at_token_number_999')).toBe('[redacted] [redacted]');
  });
});

describe('every form a secret can take on the way out', () => {
  const secret = `s3cr3t "q"\\b/s%+p&a=e<l>'x' sp\u0001\u007fé中😀\u202e`;
  const json = (s: string): string => JSON.stringify(s).slice(1, -1);
  const ascii = (s: string): string =>
    json(s).replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const url = encodeURIComponent(secret);
  const forms: Record<string, string> = {
    raw: secret,
    'JSON once': json(secret),
    'JSON twice': json(json(secret)),
    'JSON, ASCII-only (\\uXXXX)': ascii(secret),
    'JSON, ASCII-only, upper-case hex': ascii(secret).replace(
      /\\u([0-9a-f]{4})/g,
      (_, h: string) => `\\u${h.toUpperCase()}`,
    ),
    'JSON, "/" as "\\/"': json(secret).replaceAll('/', '\\/'),
    'JSON twice, ASCII-only': json(ascii(secret)),
    'URL-encoded': url,
    'URL-encoded, lower-case hex': url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    'URL-encoded, + for space': url.replaceAll('%20', '+'),
    'form-encoded': new URLSearchParams({ client_secret: secret }).toString(),
    'HTML-escaped': secret
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;'),
    'XML-escaped, controls as U+FFFD (junit.xml)': secret
      .replace(/[\u0001\u007f]/g, (c) => (c === '\u0001' ? '\uFFFD' : c))
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;'),
    'HTML-escaped JSON': json(secret)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;'),
    base64: Buffer.from(secret).toString('base64'),
    base64url: Buffer.from(secret).toString('base64url'),
    'Basic id:secret (offset 1)': `Basic ${Buffer.from(`a:${secret}`).toString('base64')}`,
    'Basic id:secret (offset 2)': `Basic ${Buffer.from(`ab:${secret}`).toString('base64')}`,
    'Basic id:secret (offset 0)': `Basic ${Buffer.from(`abc:${secret}`).toString('base64')}`,
    'Basic id:form-encoded secret (RFC 6749 §2.3.1)': `Basic ${Buffer.from(`abc:${new URLSearchParams({ v: secret }).toString().slice(2)}`).toString('base64')}`,
  };

  it.each(Object.entries(forms))('%s', (_, form) => {
    const mask = new SecretMask();
    mask.add(secret);
    const masked = mask.redact(`before ${form} after`);
    expect(masked).toContain('[redacted]');
    // What is left around a masked base64 is at most the few characters its alignment shares with its neighbours.
    expect(masked.replace(/\[redacted\]/g, '').length).toBeLessThan(`before  after`.length + 16);
    expect(masked).not.toContain('s3cr3t');
  });

  it("the free function masks the same forms (the token endpoint's words, where they enter)", () => {
    expect(redact(`said ${json(json(secret))}`, [secret])).toBe('said [redacted]');
  });
});

describe('redactWritten: the mask of every file written', () => {
  it('masks with the secrets of every command in progress, and forgets a command once it is closed', () => {
    const a = new SecretMask();
    const b = new SecretMask();
    a.add('first-secret-value');
    b.addToken('second_token_value');
    expect(redactWritten('first-secret-value second_token_value')).toBe('[redacted] [redacted]');
    a.close();
    expect(redactWritten('first-secret-value second_token_value')).toBe('first-secret-value [redacted]');
    b.close();
    expect(redactWritten('second_token_value')).toBe('second_token_value');
  });
});
