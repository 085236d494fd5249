/** A proxy password that was not percent-encoded is not printed by the refusal of its URL. */
import { describe, expect, it } from 'vitest';

import { parseProxyUrl } from './proxy-env.js';

describe('an unusable proxy URL never shows its password', () => {
  it.each([
    ['http://user:pa/ss@proxy:3128', 'pa/ss'],
    ['http://user:p#ss@proxy:3128', 'p#ss'],
    ['https://user:p@ss@proxy:3128', 'ss@proxy'],
  ])('%s', (value, secret) => {
    let message = '';
    try {
      parseProxyUrl('HTTPS_PROXY', value);
    } catch (error) {
      message = `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
    }
    expect(message).toMatch(/HTTPS_PROXY=/);
    expect(message).not.toContain(secret);
  });
});
