/**
 * `--metrics-host`: what the scrape endpoint listens on. Only plain spellings are taken (a dotted-quad
 * IPv4, an IPv6 literal with or without brackets, a DNS name): an empty host, blanks, `0`, `127.1` or
 * `0x7f000001` are what the system resolver turns silently into "every interface" or some address nobody
 * meant, so they are refused. What was actually bound is then judged from the socket itself, whatever
 * the spelling: anything but loopback is said loudly, since /metrics has no authentication and no TLS.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { UsageError } from '../core/errors.js';

/** Who can reach the endpoint, from the address the socket is bound to. */
export type Exposure = 'loopback' | 'every-interface' | 'network';

/** A DNS name: labels of letters, digits and hyphens; the last one starts with a letter (so never a number in disguise). */
const DNS_NAME = /^(?=.{1,253}\.?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;

const EXPECTED = 'expected an IPv4 address like 127.0.0.1 or 0.0.0.0, an IPv6 address like ::1 or [::], or a host name';

/** The host to listen on, from the flag's text; a UsageError (exit 2) for any other spelling. */
export function checkMetricsHost(text: string): string {
  // Brackets only around IPv6, as in a URL.
  if (text.startsWith('[') && text.endsWith(']') && isIPv6(text.slice(1, -1))) return text.slice(1, -1);
  if (isIPv4(text) || isIPv6(text) || DNS_NAME.test(text)) return text;
  throw new UsageError(`--metrics-host ${JSON.stringify(text)}: ${text.trim() === '' ? 'empty' : 'not an address'}; ${EXPECTED}`, 'the default is 127.0.0.1 (this host only); nothing was sent');
}

/** Whether the bound address is loopback, every interface (0.0.0.0, ::), or one other interface. */
export function exposureOf(boundAddress: string): Exposure {
  const v4 = boundAddress.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  if (v4 === '0.0.0.0' || v4 === '::') return 'every-interface';
  if (/^127\./.test(v4) || v4 === '::1') return 'loopback';
  return 'network';
}

/** The line said on stderr when the endpoint is reachable from elsewhere, or null for loopback. */
export function exposureWarning(exposure: Exposure, url: string): string | null {
  if (exposure === 'loopback') return null;
  const where = exposure === 'every-interface' ? 'on EVERY network interface of this host' : 'on a network interface (not loopback)';
  return `loadproof: WARNING: --metrics-host: ${url} listens ${where}: anyone who can reach it can read this run's live metrics (scenario name, environment, time scale, request counts by status and outcome, latencies, rates, in flight), without authentication or TLS`;
}
