/**
 * Loopback, as the guard defines it: every address that reaches this host, in every spelling the
 * WHATWG URL parser accepts. One function for mock and real targets, so a mock must be here and a
 * real environment must not, with the same answer for both.
 *
 * - 127.0.0.0/8, and 0.0.0.0 (connecting to it reaches this host). The parser already turns
 *   127.1, 0x7f000001, 2130706433, 0177.0.0.1 and "0" into dotted quads.
 * - IPv6 ::1 and :: (unspecified, which reaches this host too), and the IPv4 addresses above
 *   embedded in IPv6: mapped ::ffff:a.b.c.d and compatible ::a.b.c.d (the parser writes them in
 *   hex, [::ffff:7f00:1]).
 * - localhost, localhost. and any name under it (RFC 6761: they resolve to loopback), any case.
 */

/** A dotted-quad IPv4 address that reaches this host: 127.0.0.0/8 or 0.0.0.0. */
function isLoopbackIpv4(octets: readonly number[]): boolean {
  return octets[0] === 127 || octets.every((o) => o === 0);
}

/** The eight 16-bit groups of an IPv6 address as the URL parser serialises it (hex, `::` compressed), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : Number.NaN));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const zeros = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<number>(Math.max(0, zeros)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : undefined;
}

function isLoopbackIpv6(groups: readonly number[]): boolean {
  const [a, b, c, d, e, f, g, h] = groups as [number, number, number, number, number, number, number, number];
  if (a !== 0 || b !== 0 || c !== 0 || d !== 0 || e !== 0) return false;
  const embedded = [g >> 8, g & 0xff, h >> 8, h & 0xff];
  // ::ffff:a.b.c.d (mapped) or ::a.b.c.d (compatible; :: and ::1 are 0.0.0.0 and 0.0.0.1 here).
  if (f === 0xffff) return isLoopbackIpv4(embedded);
  if (f !== 0) return false;
  return (g === 0 && (h === 0 || h === 1)) || isLoopbackIpv4(embedded);
}

/** Whether a URL's host is this machine (see the module comment for every spelling). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = ipv6Groups(host.slice(1, -1));
    return groups !== undefined && isLoopbackIpv6(groups);
  }
  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (quad !== null) return isLoopbackIpv4(quad.slice(1).map(Number));
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  return name === 'localhost' || name.endsWith('.localhost');
}
