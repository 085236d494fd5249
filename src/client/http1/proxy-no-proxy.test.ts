import { describe, expect, it } from 'vitest';

import { bypassesProxy, parseNoProxy } from './proxy-no-proxy.js';

/** [NO_PROXY, host (as a URL's hostname), port, reached directly] */
const CASES: readonly [string, string, number, boolean][] = [
  // curl's own examples (CURLOPT_NOPROXY): a name matches itself and the names under it, on a label boundary.
  ['ample.com', 'ample.com', 443, true],
  ['ample.com', 'ample.com', 80, true],
  ['ample.com', 'www.ample.com', 443, true],
  ['ample.com', 'www.example.com', 443, false],
  ['ample.com', 'ample.com.org', 443, false],
  ['example.com,::1,localhost', '[::1]', 443, true],
  ['example.com,::1,localhost', 'localhost', 8080, true],
  ['192.168.0.0/16', '192.168.44.3', 443, true],
  ['192.168.0.0/16', '192.169.0.1', 443, false],
  // A leading dot or *. means the same (undici, Deno, wget).
  ['.example.com', 'example.com', 443, true],
  ['.example.com', 'api.example.com', 443, true],
  ['*.example.com', 'api.example.com', 443, true],
  ['.example.com', 'notexample.com', 443, false],
  // * alone: every host. Separators: commas and white space; case does not matter; a trailing dot is the same name.
  ['*', 'anything.example', 443, true],
  ['foo.test, *', 'anything.example', 443, true],
  ['a.test  Example.COM', 'api.example.com', 443, true],
  ['example.com', 'API.Example.com.', 443, true],
  ['', 'example.com', 443, false],
  // host:port matches that port only ([v6]:port for IPv6).
  ['example.com:8443', 'example.com', 8443, true],
  ['example.com:8443', 'example.com', 443, false],
  ['[::1]:8443', '[::1]', 8443, true],
  ['[::1]:8443', '[::1]', 443, false],
  // IP addresses: equal in any spelling, never by suffix, never a name by resolving it.
  ['127.0.0.1', '127.0.0.1', 80, true],
  ['0:0:0:0:0:0:0:1', '[::1]', 80, true],
  ['10.0.0.1', '110.0.0.1', 80, false],
  ['0.0.1', '10.0.0.1', 80, false],
  ['127.0.0.1', 'localhost', 80, false],
  ['localhost', '127.0.0.1', 80, false],
  ['10.0.0.0/8', '10.200.3.4', 80, true],
  ['10.0.0.0/8', 'ten.example', 80, false],
  ['fd00::/8', '[fd12:3456::1]', 443, true],
  ['fd00::/8', '[fe80::1]', 443, false],
  ['::ffff:10.0.0.0/104', '[::ffff:a00:5]', 443, true],
  // An entry that is none of these matches nothing (curl ignores it): a bad prefix, a stray colon.
  ['10.0.0.0/33', '10.0.0.1', 80, false],
  ['10.0.0.0/x', '10.0.0.1', 80, false],
];

describe('NO_PROXY', () => {
  it.each(CASES)('NO_PROXY=%j, %s:%i → direct: %s', (noProxy, host, port, direct) => {
    expect(bypassesProxy(parseNoProxy(noProxy), host, port)).toBe(direct);
  });
});
