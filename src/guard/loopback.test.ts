/**
 * Loopback in disguise: a real environment must never be this machine under another spelling. Every spelling of this
 * host that the WHATWG URL parser accepts is loopback, for mock and real targets alike; look-alikes on other hosts are
 * not.
 */
import { describe, expect, it } from 'vitest';

import { isLoopbackUrl } from './loopback.js';

describe('isLoopbackUrl', () => {
  it.each([
    // 127.0.0.0/8, in every spelling the parser normalises to a dotted quad
    'http://127.0.0.1:9000',
    'http://127.255.255.254',
    'http://127.1',
    'http://127.0.1',
    'http://0x7f000001',
    'http://0x7F.0.0.1',
    'http://2130706433',
    'http://017700000001',
    'http://0177.0.0.1',
    'https://127.0.0.1./x',
    // 0.0.0.0 reaches this host
    'http://0.0.0.0:8080',
    'http://0',
    'http://0x0',
    // IPv6 loopback and unspecified, in every spelling
    'http://[::1]:9000',
    'http://[0:0:0:0:0:0:0:1]',
    'http://[0000:0000:0000:0000:0000:0000:0000:0001]',
    'http://[::0:1]',
    'http://[::]',
    'http://[0::0]',
    'http://[0:0:0:0:0:0:0:0]',
    // IPv4-mapped (normalised to hex by the parser: [::ffff:7f00:1]) and IPv4-compatible
    'http://[::ffff:127.0.0.1]:9000',
    'http://[::ffff:7f00:1]',
    'http://[::FFFF:127.9.8.7]',
    'http://[0:0:0:0:0:ffff:127.0.0.1]',
    'http://[::ffff:0.0.0.0]',
    'http://[::127.0.0.1]',
    'http://[::7f00:1]',
    // localhost (RFC 6761), with a trailing dot, any subdomain, any case
    'http://localhost:9000',
    'http://LOCALHOST',
    'http://localhost.',
    'http://a.localhost',
    'http://A.b.LocalHost.:9000',
    'http://mock.localhost./path',
  ])('%s is loopback', (url) => {
    expect(isLoopbackUrl(url)).toBe(true);
  });

  it.each([
    'https://api.example.com',
    'http://127.0.0.1.example.com',
    'http://localhost.example.com',
    'http://notlocalhost',
    'http://localhostx',
    'http://xlocalhost.',
    'http://[::ffff:10.0.0.1]',
    'http://[::ffff:128.0.0.1]',
    'http://[::2]',
    'http://[::1:0]',
    'http://[1::1]',
    'http://[fe80::1]',
    'http://[64:ff9b::7f00:1]',
    'http://128.0.0.1',
    'http://126.255.255.255',
    'http://0.0.0.1',
    'http://10.0.0.5:9000',
    'not a url',
    '',
  ])('%s is not loopback', (url) => {
    expect(isLoopbackUrl(url)).toBe(false);
  });
});
