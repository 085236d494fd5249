/**
 * The address a server of ours listens on (`run --metrics-host`, `mock --host`). Only plain spellings are
 * taken (a dotted-quad IPv4, an IPv6 literal with or without brackets, a DNS name): an empty host, blanks,
 * `0`, `127.1` or `0x7f000001` are what the system resolver turns silently into "every interface" or some
 * address nobody meant, so they are refused. Who can reach the server is then judged from the address the
 * socket is bound to, whatever the spelling.
 */
import { isIPv4, isIPv6 } from 'node:net';

import { UsageError } from './errors.js';

/** Who can reach a server, from the address its socket is bound to. */
export type Exposure = 'loopback' | 'every-interface' | 'network';

/**
 * A DNS name: labels of letters, digits and hyphens; the last one starts with a letter (so never a number in disguise).
 */
const DNS_NAME = /^(?=.{1,253}\.?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;

const EXPECTED = 'expected an IPv4 address like 127.0.0.1 or 0.0.0.0, an IPv6 address like ::1 or [::], or a host name';

/** The host to listen on, from `flag`'s text; a UsageError (exit 2) for any other spelling. */
export function checkListenHost(flag: string, text: string): string {
  // Brackets only around IPv6, as in a URL.
  if (text.startsWith('[') && text.endsWith(']') && isIPv6(text.slice(1, -1))) return text.slice(1, -1);
  if (isIPv4(text) || isIPv6(text) || DNS_NAME.test(text)) return text;
  throw new UsageError(
    `${flag} ${JSON.stringify(text)}: ${text.trim() === '' ? 'empty' : 'not an address'}; ${EXPECTED}`,
    'the default is 127.0.0.1 (this host only); nothing was sent',
  );
}

/**
 * Whether a bound address (as server.address() gives it, or a URL's host in brackets) is loopback, every interface
 * (0.0.0.0, ::), or another interface.
 */
export function exposureOf(boundAddress: string): Exposure {
  const bare = boundAddress.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const v4 = bare.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (v4 === '0.0.0.0' || v4 === '::') return 'every-interface';
  if (/^127\./.test(v4) || v4 === '::1') return 'loopback';
  return 'network';
}
