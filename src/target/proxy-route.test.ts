import { describe, expect, it } from 'vitest';

import { proxyRoute } from './proxy-route.js';

describe("a target's proxy route", () => {
  it.each([
    // [target, proxy URL, the proxy used, or undefined: directly]
    ['https://api.example.com', 'http://proxy.example:3128', 'proxy.example:3128'],
    // A loopback target through a proxy on this machine: the same loopback (the tests' tinyproxy, a local relay).
    ['https://localhost:8443', 'http://127.0.0.1:3128', '127.0.0.1:3128'],
    ['http://127.0.0.1:8080', 'http://localhost:3128', 'localhost:3128'],
    ['http://[::1]:8080', 'http://[::1]:3128', '[::1]:3128'],
    // A loopback target through a proxy elsewhere would reach the proxy's own loopback: directly instead.
    ['https://localhost:8443', 'http://proxy.example:3128', undefined],
    ['http://127.0.0.1:8080', 'http://10.0.0.5:3128', undefined],
  ])('%s with the proxy %s → %s', (url, proxy, expected) => {
    const env = url.startsWith('https:') ? { HTTPS_PROXY: proxy } : { HTTP_PROXY: proxy };
    expect(proxyRoute(url, env).proxy?.shown).toBe(expected);
  });

  it('says why a loopback target does not take a proxy elsewhere, and how to say so', () => {
    const route = proxyRoute('http://127.0.0.1:8080', { http_proxy: 'http://bob:hunter2hunter2@proxy.example:3128' });
    expect(route.warning).toBe(
      'http_proxy names the proxy proxy.example:3128, but the target 127.0.0.1:8080 is this machine: it is reached directly (a proxy elsewhere would reach its own loopback); list it in NO_PROXY to say so',
    );
    expect(proxyRoute('http://127.0.0.1:8080', { NO_PROXY: '127.0.0.1', HTTP_PROXY: 'proxy.example:3128' })).toEqual({
      proxy: undefined,
      warning: undefined,
    });
  });
});
