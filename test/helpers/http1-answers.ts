/**
 * HTTP/1.x answers as a server or gateway might write them, generated from a seeded Rng: statuses with and without
 * bodies (1xx before the answer, 204, 304), Content-Length, chunked with extensions and trailers, HTTP/1.0 read to
 * the close, Connection and Keep-Alive headers, header names in any case, repeated headers, empty bodies. Every one
 * is well-formed and inside our parser's limits; http1-mutations.ts makes the ill-formed ones.
 */
import { nextInt, pick, type Rng } from '../../src/core/rng.js';

/** One answer: the head lines of the final answer kept apart, so that mutations can reach them. */
export interface Answer {
  /** What it is, for a failure message: how it was made, with its seed index. */
  readonly name: string;
  /** Whole 1xx answers before it. */
  readonly interim: string;
  /** The status line of the final answer. */
  readonly statusLine: string;
  /** Its header lines, without their CRLF. */
  readonly headers: readonly string[];
  /** What follows the blank line (the body, chunked where the answer is). */
  readonly payload: Buffer;
  readonly framing: 'length' | 'chunked' | 'close' | 'none';
}

export function answerBytes(a: Answer): Buffer {
  const head = `${a.interim}${a.statusLine}\r\n${a.headers.map((h) => `${h}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), a.payload]);
}

const STATUSES = [
  200, 201, 202, 204, 206, 301, 302, 303, 304, 307, 308, 400, 401, 403, 404, 413, 429, 500, 502, 503, 504,
];
const INTERIMS = [
  'HTTP/1.1 100 Continue\r\n\r\n',
  'HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\nLink: </a.js>; rel=preload\r\n\r\n',
  'HTTP/1.1 102 Processing\r\n\r\n',
];
const TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'text/html; charset=ISO-8859-1'];

/** A name as a server might spell it: as written, lower case or upper case. */
function spell(rng: Rng, name: string): string {
  return pick(rng, [name, name, name.toLowerCase(), name.toUpperCase()]);
}

/** Headers llhttp misreads with a tab after their value (a difference of its own: see the 'tab after' mutations). */
const NO_TAB_AFTER = ['Content-Length', 'Transfer-Encoding', 'Connection'];

/** A header line with the optional whitespace a server may put around the value. */
export function line(rng: Rng, name: string, value: string): string {
  const after = pick(rng, NO_TAB_AFTER.includes(name) ? ['', '', ' '] : ['', '', '', ' ', '\t']);
  return `${spell(rng, name)}:${pick(rng, [' ', ' ', '', '\t', '  '])}${value}${after}`;
}

/** Bytes of any value (NUL, CR and LF too: a body is not text). */
function randomBody(rng: Rng): Buffer {
  if (rng.next() < 0.2) return Buffer.alloc(0);
  const body = Buffer.alloc(nextInt(rng, 1, 400));
  for (let i = 0; i < body.length; i++) body[i] = rng.next() < 0.7 ? nextInt(rng, 32, 126) : nextInt(rng, 0, 255);
  return body;
}

/** A chunk-size line: the size in hex of either case, sometimes with leading zeros, sometimes an extension. */
function chunkSize(rng: Rng, size: number): string {
  const hex = size.toString(16);
  const cased = rng.next() < 0.5 ? hex : hex.toUpperCase();
  const zeros = rng.next() < 0.1 ? '0'.repeat(nextInt(rng, 1, 9)) : '';
  return `${zeros}${cased}${pick(rng, ['', '', '', ';ext', ';a=b', ';q="x y"', ';a=1;b'])}`;
}

function chunked(rng: Rng, body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const size = Math.min(body.length - at, nextInt(rng, 1, 200));
    parts.push(Buffer.from(`${chunkSize(rng, size)}\r\n`, 'latin1'), body.subarray(at, at + size), Buffer.from('\r\n'));
    at += size;
  }
  const trailers = Array.from({ length: pick(rng, [0, 0, 1, 2]) }, (_, i) => `X-Trailer-${i}: t${i}\r\n`).join('');
  parts.push(Buffer.from(`0${pick(rng, ['', '', ';last'])}\r\n${trailers}\r\n`, 'latin1'));
  return Buffer.concat(parts);
}

function framingFor(rng: Rng, version: string, status: number): Answer['framing'] {
  if (status === 204 || status === 304) return 'none';
  return pick(
    rng,
    version === '1.0' ? ['length', 'length', 'close'] : ['length', 'length', 'chunked', 'chunked', 'close'],
  );
}

/** The headers our client reads, and others a gateway adds. */
function ordinaryHeaders(rng: Rng, version: string, status: number): string[] {
  const headers = [line(rng, 'Content-Type', pick(rng, TYPES)), line(rng, 'Server', pick(rng, ['nginx', 'haproxy']))];
  if (status === 429 || status === 503)
    headers.push(line(rng, 'Retry-After', pick(rng, ['0', '7', '120', 'Fri, 27 Nov 2026 17:00:00 GMT'])));
  if (status >= 300 && status < 400 && status !== 304)
    headers.push(line(rng, 'Location', pick(rng, ['/v1/x', 'https://127.0.0.1:1/y'])));
  const connection = pick(
    rng,
    version === '1.0' ? ['keep-alive', 'Keep-Alive', ''] : ['', '', 'close', 'keep-alive', 'Keep-Alive'],
  );
  if (connection !== '') headers.push(line(rng, 'Connection', connection));
  if (rng.next() < 0.3) headers.push(line(rng, 'Keep-Alive', pick(rng, ['timeout=5', 'timeout=1, max=100', 'max=5'])));
  // Repeated headers: our parser joins them with ", ", as the reference's rawHeaders are joined.
  if (rng.next() < 0.3) headers.push(line(rng, 'Cache-Control', 'no-store'), line(rng, 'cache-control', 'private'));
  if (rng.next() < 0.2) headers.push(line(rng, 'Set-Cookie', 'a=1'), line(rng, 'Set-Cookie', 'b=2'));
  return headers;
}

export function generateAnswer(rng: Rng, index: number): Answer {
  const version = rng.next() < 0.25 ? '1.0' : '1.1';
  const status = pick(rng, STATUSES);
  const interim =
    version === '1.1' ? Array.from({ length: pick(rng, [0, 0, 1, 2]) }, () => pick(rng, INTERIMS)).join('') : '';
  const framing = framingFor(rng, version, status);
  const headers = ordinaryHeaders(rng, version, status);
  const body = framing === 'none' ? Buffer.alloc(0) : randomBody(rng);
  if (framing === 'length' || (framing === 'none' && rng.next() < 0.3))
    headers.push(line(rng, 'Content-Length', String(framing === 'none' ? nextInt(rng, 0, 50) : body.length)));
  if (framing === 'chunked')
    headers.push(line(rng, 'Transfer-Encoding', pick(rng, ['chunked', 'chunked', 'gzip, chunked'])));
  if (framing === 'close' && version === '1.1' && rng.next() < 0.5) headers.push(line(rng, 'Connection', 'close'));
  // A server's order: the framing headers anywhere among the others.
  for (let i = headers.length - 1; i > 0; i--) {
    const j = nextInt(rng, 0, i);
    [headers[i], headers[j]] = [headers[j]!, headers[i]!];
  }
  const reason = pick(rng, [' OK', ' Whatever', '', ' ', ' Too Many Requests']);
  return {
    name: `generated #${index} (HTTP/${version} ${status}, ${framing})`,
    interim,
    statusLine: `HTTP/${version} ${status}${reason}`,
    headers,
    payload: framing === 'chunked' ? chunked(rng, body) : body,
    framing,
  };
}
