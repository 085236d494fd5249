import { describe, expect, it } from 'vitest';

import { describeRedirect } from './redirect.js';

describe('describeRedirect', () => {
  const from = 'https://api.example.com/oauth/token';
  it('names an absolute Location, without its userinfo, query or fragment', () => {
    expect(describeRedirect(307, 'https://u:p@idp.example/token?secret=1#x', from)).toBe(
      '307 to https://idp.example/token (its userinfo and query not shown)',
    );
  });
  it('reads a relative Location against the request', () => {
    expect(describeRedirect(301, '/v2/oauth/token', from)).toBe('301 to https://api.example.com/v2/oauth/token');
  });
  it('says when there is no usable Location', () => {
    expect(describeRedirect(302, undefined, from)).toBe('302 without a usable Location header');
    expect(describeRedirect(302, 'http://[bad', from)).toBe('302 without a usable Location header');
  });
  it('bounds a long Location', () => {
    const shown = describeRedirect(308, `https://a.example/${'x'.repeat(500)}`, from);
    expect(shown.length).toBeLessThan(220);
    expect(shown.endsWith('…')).toBe(true);
  });
});
