/**
 * NO_PROXY: the hosts reached directly although a proxy is set, matched as curl and undici's EnvHttpProxyAgent
 * match them. Entries are separated by commas or white space. `*` matches every host. A name matches itself and
 * every name under it, with or without a leading `.` or `*.` (`example.com` and `.example.com` both match
 * example.com and www.example.com, never notexample.com). An IP address matches that address only, in any spelling;
 * `addr/bits` (CIDR, as curl since 7.86) a range of them; IPv6 with or without brackets. `host:port` (or
 * `[v6]:port`) matches that port only. No name is resolved: `localhost` does not match 127.0.0.1. An entry that is
 * none of these matches nothing, as in curl: NO_PROXY is shared by every tool of a machine.
 */
import { isIP } from 'node:net';

type NoProxyEntry =
  | { readonly kind: 'all' }
  | { readonly kind: 'none' }
  | { readonly kind: 'name'; readonly name: string; readonly port: number | undefined }
  | {
      readonly kind: 'address';
      readonly bits: bigint;
      readonly width: 32 | 128;
      readonly prefix: number;
      readonly port: number | undefined;
    };

type NoProxyList = readonly NoProxyEntry[];

export function parseNoProxy(value: string): NoProxyList {
  return value
    .split(/[\s,]+/)
    .filter((e) => e !== '')
    .map(parseEntry);
}

/** Whether `host` (a URL's hostname; IPv6 in brackets or not) at `port` is to be reached directly. */
export function bypassesProxy(list: NoProxyList, host: string, port: number): boolean {
  const bare = unbracket(host.toLowerCase()).replace(/\.$/, '');
  const address = ipBits(bare);
  return list.some((entry) => {
    if (entry.kind === 'all') return true;
    if (entry.kind === 'none') return false;
    if (entry.port !== undefined && entry.port !== port) return false;
    if (entry.kind === 'name') return address === undefined && (bare === entry.name || bare.endsWith(`.${entry.name}`));
    return (
      address !== undefined &&
      address.width === entry.width &&
      samePrefix(address.bits, entry.bits, entry.width, entry.prefix)
    );
  });
}

function parseEntry(raw: string): NoProxyEntry {
  if (raw === '*') return { kind: 'all' };
  const { host, port } = splitPort(raw.toLowerCase());
  const [address, bitsText] = host.split('/', 2) as [string, string | undefined];
  const ip = ipBits(address);
  if (ip !== undefined) {
    const prefix = bitsText === undefined ? ip.width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1;
    // A prefix out of range matches nothing (curl ignores such an entry).
    if (prefix < 0 || prefix > ip.width) return { kind: 'none' };
    return { kind: 'address', ...ip, prefix, port };
  }
  return { kind: 'name', name: host.replace(/^\*?\./, '').replace(/\.$/, ''), port };
}

/** `host:port`, `[v6]:port`, `[v6]`, or a bare IPv6 address (more than one colon: no port, as curl reads it). */
function splitPort(entry: string): { host: string; port: number | undefined } {
  const bracketed = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(entry);
  if (bracketed !== null) return { host: bracketed[1]!, port: portOf(bracketed[2]) };
  const hostPort = /^([^:]*):(\d{1,5})$/.exec(entry);
  if (hostPort !== null) return { host: hostPort[1]!, port: portOf(hostPort[2]) };
  return { host: entry, port: undefined };
}

const portOf = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));

const unbracket = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

function samePrefix(a: bigint, b: bigint, width: number, prefix: number): boolean {
  const shift = BigInt(width - prefix);
  return a >> shift === b >> shift;
}

/** An IP address as a number of 32 or 128 bits, or undefined when `text` is not one. */
function ipBits(text: string): { bits: bigint; width: 32 | 128 } | undefined {
  const version = isIP(text);
  if (version === 4) return { bits: ipv4Bits(text), width: 32 };
  if (version !== 6) return undefined;
  const [head, tail] = text.split('::', 2) as [string, string | undefined];
  const groups = (part: string): bigint[] =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [BigInt(parseInt(g, 16))];
          const v4 = ipv4Bits(g);
          return [v4 >> 16n, v4 & 0xffffn];
        });
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
  return { bits: all.reduce((acc, g) => (acc << 16n) | g, 0n), width: 128 };
}

const ipv4Bits = (text: string): bigint => text.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
