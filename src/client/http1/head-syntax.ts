/**
 * The syntax of a response head's lines, as RFC 9110 §5 and RFC 9112 §5 give it: a header name is a token, a value
 * holds no control character but tab, the whitespace around a value is spaces and tabs, and lines end in CRLF. What
 * breaks it is refused, as llhttp (Node's parser) refuses it: a name a gateway and we would read differently is how
 * an answer is smuggled past one of us.
 */

import { HttpParseError } from './response.js';

/** tchar (RFC 9110 §5.6.2): the characters of a token, by char code. */
const TCHAR = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TCHAR[c.charCodeAt(0)] = 1;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
/** A valid Content-Length value. */
const DIGITS = /^\d{1,15}$/;

/** Optional whitespace (OWS): space and tab only. */
const isOws = (c: number): boolean => c === 32 || c === 9;
/** A field value's characters: visible ones, space, tab and obs-text (0x80 to 0xFF); no NUL, CR, LF, DEL. */
const isValueChar = (c: number): boolean => c === 9 || (c >= 32 && c !== 127 && c <= 255);

/**
 * Reads the header line text[at, end) (a name, a colon, a value) into `headers`, lower-case name, the value without
 * the whitespace around it, a repeated name's values joined with ", ". Without `headers` it only checks the line (a
 * trailer). Throws HttpParseError.
 */
export function readHeaderLine(text: string, at: number, end: number, headers?: Record<string, string>): void {
  const colon = text.indexOf(':', at);
  if (colon <= at || colon >= end) throw new HttpParseError('HPE_INVALID_HEADER', 'a response header line has no name');
  for (let i = at; i < colon; i++)
    if (TCHAR[text.charCodeAt(i)] !== 1)
      throw new HttpParseError(
        'HPE_INVALID_HEADER',
        `a response header name is not a token (RFC 9110 §5.1): ${JSON.stringify(text.slice(at, Math.min(colon, at + 40)))}`,
      );
  let from = colon + 1;
  let to = end;
  while (from < to && isOws(text.charCodeAt(from))) from++;
  while (to > from && isOws(text.charCodeAt(to - 1))) to--;
  for (let i = from; i < to; i++)
    if (!isValueChar(text.charCodeAt(i)))
      throw new HttpParseError(
        'HPE_INVALID_HEADER',
        `the response header ${JSON.stringify(text.slice(at, Math.min(colon, at + 40)))} holds a control character (or a bare CR or LF) in its value`,
      );
  if (headers === undefined) return;
  const name = headerName(text, at, colon);
  const value = text.slice(from, to);
  const before = headers[name];
  headers[name] = before === undefined ? value : `${before}, ${value}`;
}

/** Names most answers carry, lower case, by length: read without a copy of the name (this runs for every header). */
const COMMON_NAMES: readonly (readonly string[])[] = (() => {
  const byLength: string[][] = [];
  for (const name of [
    'date',
    'server',
    'location',
    'connection',
    'keep-alive',
    'retry-after',
    'content-type',
    'server-timing',
    'content-length',
    'transfer-encoding',
  ])
    (byLength[name.length] ??= []).push(name);
  return byLength;
})();
const NONE: readonly string[] = [];

/** The header name text[at, end), a token, in lower case. */
function headerName(text: string, at: number, end: number): string {
  for (const common of COMMON_NAMES[end - at] ?? NONE) {
    let i = 0;
    // On a token's characters, setting bit 5 lower-cases a letter and changes nothing that could match a name's `-`.
    while (i < common.length && (text.charCodeAt(at + i) | 0x20) === common.charCodeAt(i)) i++;
    if (i === common.length) return common;
  }
  return text.slice(at, end).toLowerCase();
}

const OWS_AROUND = /^[ \t]+|[ \t]+$/g;

/** Whether the list `value` (a Connection header) holds `option` (lower case), as one of its comma-separated items. */
export function hasOption(value: string, option: string): boolean {
  if (value.length === option.length) return value.toLowerCase() === option; // the usual case: one item
  for (const item of value.split(',')) if (item.replace(OWS_AROUND, '').toLowerCase() === option) return true;
  return false;
}

/** The status code of the status line text[0, statusEnd); throws HttpParseError where it is not one we can read. */
export function readStatus(text: string, statusEnd: number): number {
  const minor = text.charCodeAt(7);
  if (
    !text.startsWith('HTTP/1.') ||
    (minor !== 48 && minor !== 49) ||
    text.charCodeAt(8) !== 32 ||
    statusEnd < 12 ||
    !isDigit(text.charCodeAt(9)) ||
    !isDigit(text.charCodeAt(10)) ||
    !isDigit(text.charCodeAt(11)) ||
    (statusEnd > 12 && text.charCodeAt(12) !== 32) ||
    text.lastIndexOf('\r', statusEnd - 1) >= 0 ||
    text.lastIndexOf('\n', statusEnd - 1) >= 0
  )
    throw new HttpParseError('HPE_INVALID_STATUS', 'the response does not start with an HTTP/1.x status line');
  const status = (text.charCodeAt(9) - 48) * 100 + (text.charCodeAt(10) - 48) * 10 + (text.charCodeAt(11) - 48);
  // Below 100 is no status (RFC 9110 §15), not an interim answer to wait past.
  if (status < 100)
    throw new HttpParseError('HPE_INVALID_STATUS', `the response's status ${status} is not a status code (100-999)`);
  // We never ask to switch protocols: what would follow a 101 is not HTTP/1.1.
  if (status === 101)
    throw new HttpParseError('HPE_INVALID_STATUS', 'the response is a 101 Switching Protocols that was not asked for');
  return status;
}

/**
 * The head's Content-Length, checked in every head (a 1xx, 204 or 304 too, as llhttp does); undefined without one.
 * Beside Transfer-Encoding it is refused: RFC 9112 §6.3 says such an answer may be response splitting.
 */
export function contentLength(headers: Record<string, string>): number | undefined {
  const length = headers['content-length'];
  if (length === undefined) return undefined;
  if (headers['transfer-encoding'] !== undefined)
    throw new HttpParseError(
      'HPE_INVALID_CONTENT_LENGTH',
      'the response has both Transfer-Encoding and Content-Length (RFC 9112 §6.3: a sign of response splitting)',
    );
  // One value, as nearly every answer has; repeated equal values (a list) are one too (RFC 9110 §8.6).
  const values = DIGITS.test(length) ? [length] : [...new Set(length.split(',').map((v) => v.replace(OWS_AROUND, '')))];
  const only = values.length === 1 ? values[0]! : '';
  if (!DIGITS.test(only))
    throw new HttpParseError('HPE_INVALID_CONTENT_LENGTH', 'the response has an invalid Content-Length');
  return Number(only);
}

/** How far a head still arriving was checked: where its line still arriving starts, and how far into it. */
export interface HeadProgress {
  readonly line: number;
  readonly checked: number;
}

export const HEAD_START: HeadProgress = { line: 0, checked: 0 };

const CR = 13;
const LF = 10;
const COLON = 58;

/**
 * Checks a head not yet whole as far as it goes, line by line, and the line still arriving so far: an ill-formed
 * head (a bare LF, a name that is no token, no status line) is refused at once, not waited on until the close or
 * the size limit, which a server that keeps the connection open would turn into a timeout. It resumes where the
 * previous call stopped (`from`), so a head that comes a byte at a time is read once, not once per byte.
 */
export function checkPartialHead(head: Buffer, from: HeadProgress = HEAD_START): HeadProgress {
  let line = from.line;
  let checked = from.checked;
  // The CRLF ending a line may straddle two chunks: look from the byte before what was checked.
  for (let end = head.indexOf('\r\n', Math.max(line, checked - 1)); end >= 0; end = head.indexOf('\r\n', line)) {
    const text = head.toString('latin1', line, end);
    if (line === 0) readStatus(text, end);
    else readHeaderLine(text, 0, end - line);
    line = end + 2;
    checked = line;
  }
  const end = head[head.length - 1] === CR ? head.length - 1 : head.length; // its LF may come next
  checkLineSoFar(head, line, Math.max(line, checked), end);
  return { line, checked: end };
}

/** Checks head[from, end) of the line that starts at `line` and is still arriving (the status line at 0). */
function checkLineSoFar(head: Buffer, line: number, from: number, end: number): void {
  if (line === 0) {
    // No CRLF yet: any LF is a bare one, and so is a CR before the end.
    for (let i = from; i < end; i++)
      if (head[i] === LF || head[i] === CR || (i < 7 && head[i] !== 'HTTP/1.'.charCodeAt(i)))
        throw new HttpParseError('HPE_INVALID_STATUS', 'the response does not start with an HTTP/1.x status line');
    return;
  }
  const colon = head.indexOf(COLON, line);
  const nameEnd = colon < 0 || colon > end ? end : colon;
  for (let i = from; i < end; i++) {
    if (i < nameEnd && TCHAR[head[i]!] !== 1)
      throw new HttpParseError('HPE_INVALID_HEADER', 'a response header name is not a token (RFC 9110 §5.1)');
    if (i > nameEnd && !isValueChar(head[i]!))
      throw new HttpParseError(
        'HPE_INVALID_HEADER',
        'a response header value holds a control character (or a bare CR or LF)',
      );
  }
}
