import { describe, expect, it } from 'vitest';

import { UsageError } from '../../core/index.js';
import { redact } from '../../core/index.js';
import { hideCredentials, proxyFor } from './proxy-env.js';

const shownFor = (url: string, env: Record<string, string>): string | undefined => {
  const proxy = proxyFor(url, env);
  return proxy === undefined ? undefined : `${proxy.variable} ${proxy.shown}`;
};

describe('the proxy a target is reached through', () => {
  it.each([
    // [target, environment, the proxy used ("VARIABLE host:port"), or undefined: directly]
    ['https://api.example.com', {}, undefined],
    ['https://api.example.com', { HTTPS_PROXY: 'http://proxy.example:3128' }, 'HTTPS_PROXY proxy.example:3128'],
    ['https://api.example.com', { https_proxy: 'http://proxy.example:3128' }, 'https_proxy proxy.example:3128'],
    // Lowercase wins where both are set (curl, undici); an empty variable is unset.
    ['https://api.example.com', { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:2' }, 'https_proxy low:1'],
    ['https://api.example.com', { https_proxy: '', HTTPS_PROXY: 'http://up:2' }, 'HTTPS_PROXY up:2'],
    // Each scheme its own variable: no fallback from https to HTTP_PROXY (curl; undici does fall back).
    ['https://api.example.com', { HTTP_PROXY: 'http://p:3128' }, undefined],
    ['http://api.example.com', { HTTPS_PROXY: 'http://p:3128' }, undefined],
    ['http://api.example.com', { HTTP_PROXY: 'http://p:3128' }, 'HTTP_PROXY p:3128'],
    // No scheme: http. No port: curl's 1080. An explicit :80 stays 80.
    ['https://api.example.com', { HTTPS_PROXY: 'proxy.example:8080' }, 'HTTPS_PROXY proxy.example:8080'],
    ['https://api.example.com', { HTTPS_PROXY: 'http://proxy.example' }, 'HTTPS_PROXY proxy.example:1080'],
    ['https://api.example.com', { HTTPS_PROXY: 'http://proxy.example:80' }, 'HTTPS_PROXY proxy.example:80'],
    ['https://api.example.com', { HTTPS_PROXY: 'http://[fd00::1]:3128/' }, 'HTTPS_PROXY [fd00::1]:3128'],
    // NO_PROXY (its rules: proxy-no-proxy.test.ts), with the target's default port.
    ['https://api.example.com', { HTTPS_PROXY: 'p:1', NO_PROXY: 'example.com' }, undefined],
    ['https://api.example.com', { HTTPS_PROXY: 'p:1', NO_PROXY: 'api.example.com:443' }, undefined],
    ['https://api.example.com', { HTTPS_PROXY: 'p:1', NO_PROXY: 'api.example.com:8443' }, 'HTTPS_PROXY p:1'],
    ['https://api.example.com', { HTTPS_PROXY: 'p:1', no_proxy: 'other.test', NO_PROXY: '*' }, 'HTTPS_PROXY p:1'],
    // Loopback is proxied unless NO_PROXY says otherwise, as in curl and undici (src/target decides what we do).
    ['http://127.0.0.1:8080', { HTTP_PROXY: 'p:1' }, 'HTTP_PROXY p:1'],
    ['http://127.0.0.1:8080', { HTTP_PROXY: 'p:1', NO_PROXY: 'localhost,127.0.0.1' }, undefined],
  ] as const)('%s with %j → %s', (url, env, expected) => {
    expect(shownFor(url, env)).toBe(expected);
  });

  it('takes the credentials from the URL, URL-decoded, for Proxy-Authorization only', () => {
    const proxy = proxyFor('https://api.example.com', {
      HTTPS_PROXY: 'http://j%40doe:p%3Ass%20word@proxy.example:3128',
    });
    expect(proxy).toMatchObject({ shown: 'proxy.example:3128', host: 'proxy.example', port: 3128 });
    expect(proxy?.authorization).toBe(`Basic ${Buffer.from('j@doe:p:ss word').toString('base64')}`);
    // Decoded, as typed (percent-encoded), and the Basic header's base64: every form the mask must know.
    expect(proxy?.secrets).toEqual(
      expect.arrayContaining([
        'p:ss word',
        'p%3Ass%20word',
        'j@doe:p:ss word',
        'j%40doe:p%3Ass%20word',
        Buffer.from('j@doe:p:ss word').toString('base64'),
      ]),
    );
    expect(JSON.stringify({ shown: proxy?.shown, variable: proxy?.variable })).not.toMatch(/doe|ss/);
  });

  it.each([
    ['https://proxy.example:3128', /a https proxy; loadproof speaks to a proxy in plain HTTP \(CONNECT\) only/],
    ['socks5://proxy.example:1080', /a socks5 proxy/],
    ['http://proxy.example:3128/path', /a path, query or fragment/],
    ['http://proxy.example:99999', /not a URL/],
    ['http://user:s3cret%zz@proxy.example:3128', /not valid percent-encoding/],
  ])('refuses HTTPS_PROXY=%s with the variable, the form expected and no credentials', (value, why) => {
    let error: unknown;
    try {
      proxyFor('https://api.example.com', { HTTPS_PROXY: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).toMatch(why);
    expect(message).toMatch(/^HTTPS_PROXY=.*expected http:\/\/\[user:password@\]host\[:port\]$/);
    expect(message).not.toContain('s3cret');
  });

  it.each([
    'http://alice:pr0xy%2fS3cret%40Pass@proxy.example:3128',
    'http://alice:pr0xy@S3cret-Pass@proxy.example:3128',
    'http://al%69ce:pr0xy%20S3cret+Pass@proxy.example:3128',
  ])('the mask given the secrets of %s hides the password in every form it was given or sent in', (value) => {
    const proxy = proxyFor('https://api.example.com', { HTTPS_PROXY: value })!;
    const sent = proxy.authorization!.slice('Basic '.length);
    const decoded = Buffer.from(sent, 'base64').toString('utf8');
    const text = `typed ${value} decoded ${decoded} header Proxy-Authorization: ${proxy.authorization}`;
    const masked = redact(text, proxy.secrets);
    for (const part of ['S3cret', sent]) expect(masked).not.toContain(part);
  });

  it('hides the user and password of a proxy URL wherever it is shown', () => {
    expect(hideCredentials('http://user:pa55word@proxy:3128')).toBe('http://***@proxy:3128');
    expect(hideCredentials('user:pa55word@proxy:3128')).toBe('***@proxy:3128');
    expect(hideCredentials('http://proxy:3128')).toBe('http://proxy:3128');
    // A password typed without its percent-encoding: everything up to the last @ goes, the URL parsed or not.
    expect(hideCredentials('http://user:pa/ss@proxy:3128')).toBe('http://***@proxy:3128');
    expect(hideCredentials('http://user:p#s?s@proxy:3128')).toBe('http://***@proxy:3128');
    expect(hideCredentials('https://user:p@ss@proxy:3128')).toBe('https://***@proxy:3128');
    expect(hideCredentials('user:p@s/s@proxy:3128')).toBe('***@proxy:3128');
  });
});
