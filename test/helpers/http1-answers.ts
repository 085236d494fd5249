/**
 * HTTP/1.x answers as a server or gateway might write them, generated from a seeded Rng: statuses with and without
 * bodies (1xx before the answer, 204, 304), Content-Length, chunked with extensions and trailers, HTTP/1.0 read to
 * the close, Connection and Keep-Alive headers, header names in any case, repeated headers, empty bodies. Every one
 * is well-formed and inside our parser's limits; {@link mutateAnswer} makes the ill-formed ones.
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
function line(rng: Rng, name: string, value: string): string {
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

/** An ill-formed (or oddly formed) answer: which mutation made it, and its bytes. */
export interface Mutant {
  readonly name: string;
  /** The mutation's name: the key of the differential test's table of accepted differences. */
  readonly variant: string;
  readonly bytes: Buffer;
}

type Mutation = (rng: Rng, a: Answer) => Answer | Buffer | undefined;

const withHeaders = (a: Answer, headers: readonly string[]): Answer => ({ ...a, headers });
const insertAt = (list: readonly string[], at: number, item: string): string[] => [
  ...list.slice(0, at),
  item,
  ...list.slice(at),
];
const lengthIndex = (a: Answer): number => a.headers.findIndex((h) => /^content-length:/i.test(h));
/** Replaces the final answer's head lines (interim answers kept). */
const withHeadText = (a: Answer, head: string): Buffer =>
  Buffer.concat([Buffer.from(`${a.interim}${head}`, 'latin1'), a.payload]);
const headText = (a: Answer): string => `${a.statusLine}\r\n${a.headers.map((h) => `${h}\r\n`).join('')}\r\n`;
/** A chunked payload with its first CRLF after a chunk-size line or chunk data replaced. */
const chunkCrlf = (a: Answer, by: string, nth: number): Buffer | undefined => {
  if (a.framing !== 'chunked') return undefined;
  const text = a.payload.toString('latin1');
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf('\r\n', at + 1);
    if (at < 0) return undefined;
  }
  return Buffer.concat([
    Buffer.from(`${a.interim}${headText(a)}`, 'latin1'),
    Buffer.from(text.slice(0, at) + by + text.slice(at + 2), 'latin1'),
  ]);
};

/** The mutations, by name. Each makes one kind of fault; undefined where it does not apply to the answer. */
export const MUTATIONS: Readonly<Record<string, Mutation>> = {
  'transfer-encoding beside content-length': (rng, a) =>
    a.framing === 'length'
      ? withHeaders(a, [...a.headers, line(rng, 'Transfer-Encoding', pick(rng, ['chunked', 'gzip']))])
      : undefined,
  'content-length beside transfer-encoding': (rng, a) =>
    a.framing === 'chunked'
      ? withHeaders(a, insertAt(a.headers, 0, line(rng, 'Content-Length', String(a.payload.length))))
      : undefined,
  'content-length twice, equal': (_, a) =>
    lengthIndex(a) < 0 ? undefined : withHeaders(a, [...a.headers, a.headers[lengthIndex(a)]!]),
  'content-length list, equal': (_, a) =>
    a.framing === 'length'
      ? withHeaders(
          a,
          a.headers.map((h) => h.replace(/^(content-length:\s*)(\d+)/i, '$1$2, $2')),
        )
      : undefined,
  'content-length twice, conflicting': (rng, a) =>
    a.framing === 'length'
      ? withHeaders(a, [...a.headers, line(rng, 'Content-Length', String(a.payload.length + 1))])
      : undefined,
  'content-length list, conflicting': (_, a) =>
    a.framing === 'length'
      ? withHeaders(
          a,
          a.headers.map((h) => h.replace(/^(content-length:\s*)(\d+)/i, '$1$2, 1$2')),
        )
      : undefined,
  'content-length not a number': (rng, a) =>
    lengthIndex(a) < 0
      ? undefined
      : withHeaders(
          a,
          a.headers.map((h, i) =>
            i === lengthIndex(a)
              ? `Content-Length: ${pick(rng, ['+1', '-1', '0x1', '1.0', '', '1 1', '99999999999999999999'])}`
              : h,
          ),
        ),
  'obs-fold': (rng, a) =>
    withHeaders(a, insertAt(a.headers, nextInt(rng, 0, a.headers.length), `${pick(rng, [' ', '\t'])}folded`)),
  'space before the first header name': (_, a) => withHeaders(a, [` ${a.headers[0]!}`, ...a.headers.slice(1)]),
  'space before a colon': (rng, a) => {
    const i = nextInt(rng, 0, a.headers.length - 1);
    return withHeaders(
      a,
      a.headers.map((h, j) => (j === i ? h.replace(':', pick(rng, [' :', '\t:'])) : h)),
    );
  },
  'invalid character in a header name': (rng, a) => {
    const i = nextInt(rng, 0, a.headers.length - 1);
    return withHeaders(
      a,
      a.headers.map((h, j) =>
        j === i ? h.replace(/^(.)/, `$1${pick(rng, ['{', '"', '/', '@', '\u00e9', '\x00', '\x7f'])}`) : h,
      ),
    );
  },
  'control character in a header value': (rng, a) => {
    const i = nextInt(rng, 0, a.headers.length - 1);
    return withHeaders(
      a,
      a.headers.map((h, j) =>
        j === i ? h.replace(/:(.?)/, `:$1${pick(rng, ['\x00', '\x01', '\x7f', '\x0b', '\x0c', '\r'])}x`) : h,
      ),
    );
  },
  'no-break space after a value': (rng, a) => {
    const i = lengthIndex(a) >= 0 && rng.next() < 0.5 ? lengthIndex(a) : nextInt(rng, 0, a.headers.length - 1);
    return withHeaders(
      a,
      a.headers.map((h, j) => (j === i ? `${h}\u00a0` : h)),
    );
  },
  'NUL in the head': (rng, a) => {
    const head = headText(a);
    const at = nextInt(rng, 0, head.length - 4);
    return withHeadText(a, `${head.slice(0, at)}\x00${head.slice(at)}`);
  },
  'LF-only lines': (rng, a) => {
    const head = headText(a);
    if (rng.next() < 0.5) return withHeadText(a, head.replaceAll('\r\n', '\n'));
    const crlfs = [...head.matchAll(/\r\n/g)].map((m) => m.index);
    const at = pick(rng, crlfs);
    return withHeadText(a, `${head.slice(0, at)}\n${head.slice(at + 2)}`);
  },
  'missing CRLF in the head': (rng, a) => {
    const head = headText(a);
    const at = pick(rng, [...head.matchAll(/\r\n/g)].map((m) => m.index).slice(0, -1));
    return withHeadText(a, `${head.slice(0, at)}${head.slice(at + 2)}`);
  },
  // Well under the limit (16 KiB) and well over it: Node counts a head its own way near it.
  'long head under the limit': (rng, a) =>
    withHeaders(a, [...a.headers, line(rng, 'X-Pad', 'p'.repeat(nextInt(rng, 8_000, 12_000)))]),
  'over-long head': (rng, a) =>
    withHeaders(a, [...a.headers, line(rng, 'X-Pad', 'p'.repeat(nextInt(rng, 20_000, 40_000)))]),
  'bad chunk size': (rng, a) => {
    if (a.framing !== 'chunked') return undefined;
    const text = a.payload.toString('latin1');
    const bad = pick(rng, ['-1', '0x1', 'zz', '', ' 1', '+1', 'fffffffffffffffff', 'g']);
    return Buffer.concat([
      Buffer.from(`${a.interim}${headText(a)}${bad}`, 'latin1'),
      Buffer.from(text.slice(/^[0-9a-fA-F]*/.exec(text)![0].length), 'latin1'),
    ]);
  },
  'chunk data longer than its size': (_, a) => chunkCrlf(a, 'X\r\n', 1),
  'missing CRLF in chunked framing': (rng, a) => chunkCrlf(a, '', nextInt(rng, 0, 3)),
  'bare CR in chunked framing': (rng, a) => chunkCrlf(a, '\r', nextInt(rng, 0, 3)),
  'bare LF in chunked framing': (rng, a) => chunkCrlf(a, '\n', nextInt(rng, 0, 3)),
  'whitespace after a chunk size': (rng, a) => chunkCrlf(a, `${pick(rng, [' ', '\t', ' ;x', '\t;x=y'])}\r\n`, 0),
  'chunk extension syntax': (rng, a) => chunkCrlf(a, `${pick(rng, [';', '; a = b', ';a=', ';a="b', ';a=b '])}\r\n`, 0),
  'ill-formed trailer': (rng, a) => {
    if (a.framing !== 'chunked') return undefined;
    const text = a.payload.toString('latin1');
    const trailer = pick(rng, ['no colon here', ': no name', 'X-T: a\x01b', 'X T: v', ' folded']);
    return Buffer.concat([
      Buffer.from(`${a.interim}${headText(a)}`, 'latin1'),
      Buffer.from(`${text.slice(0, -2)}${trailer}\r\n\r\n`, 'latin1'),
    ]);
  },
  'cut short': (rng, a) => {
    const bytes = answerBytes(a);
    return bytes.subarray(0, nextInt(rng, 0, bytes.length - 1));
  },
  'bytes after the answer': (rng, a) =>
    a.framing === 'close'
      ? undefined
      : Buffer.concat([
          answerBytes(a),
          Buffer.from(pick(rng, ['junk', 'HTTP/1.1 200 OK\r\n\r\n', '\r\n', 'H']), 'latin1'),
        ]),
  'odd Connection value': (rng, a) =>
    withHeaders(a, [
      ...a.headers.filter((h) => !/^connection:/i.test(h)),
      line(
        rng,
        'Connection',
        pick(rng, ['closed', 'keep-alive-x', 'x, close , y', 'x,keep-alive', 'Upgrade', 'CLOSE']),
      ),
    ]),
  'tab after the Content-Length value': (_, a) =>
    lengthIndex(a) < 0
      ? undefined
      : withHeaders(
          a,
          a.headers.map((h, i) => (i === lengthIndex(a) ? `${h.trimEnd()}\t` : h)),
        ),
  'tab after the Transfer-Encoding value': (_, a) =>
    a.framing === 'chunked'
      ? withHeaders(
          a,
          a.headers.map((h) => (/^transfer-encoding:/i.test(h) ? `${h.trimEnd()}\t` : h)),
        )
      : undefined,
  'tab after the Connection value': (rng, a) =>
    withHeaders(a, [
      ...a.headers.filter((h) => !/^connection:/i.test(h)),
      `Connection: ${pick(rng, ['close', 'keep-alive'])}\t`,
    ]),
  'Connection: keep-alive and close, HTTP/1.0': (_, a) =>
    a.framing === 'length'
      ? {
          ...a,
          interim: '',
          statusLine: a.statusLine.replace(/^HTTP\/1\.1/, 'HTTP/1.0'),
          headers: [
            ...a.headers.filter((h) => !/^connection:/i.test(h)),
            'Connection: keep-alive',
            'Connection: close',
          ],
        }
      : undefined,
  'HTTP version other than 1.0 and 1.1': (rng, a) => ({
    ...a,
    statusLine: a.statusLine.replace(/^HTTP\/1\.[01]/, pick(rng, ['HTTP/0.9', 'HTTP/2.0'])),
  }),
  'malformed HTTP version': (rng, a) => ({
    ...a,
    statusLine: a.statusLine.replace(
      /^HTTP\/1\.[01]/,
      pick(rng, ['HTTP/1.2', 'http/1.1', 'HTTP/1.', 'HTTP/11', 'HTTX/1.1']),
    ),
  }),
  'status below 100': (rng, a) => ({
    ...a,
    statusLine: a.statusLine.replace(/ \d{3}/, pick(rng, [' 000', ' 099', ' 042'])),
  }),
  'status not three digits': (rng, a) => ({
    ...a,
    statusLine: a.statusLine.replace(/ \d{3}/, pick(rng, [' 20', ' 2000', ' 2x0', '  200', ' -20'])),
  }),
  'unrequested 101 Switching Protocols': (_, a) => ({
    ...a,
    interim: `HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n${a.interim}`,
  }),
};

/**
 * `count` mutants of `answers`: each mutation in turn (so that every one is made), each on the next answer it applies
 * to; the Rng chooses within a mutation.
 */
export function fuzzAnswers(rng: Rng, answers: readonly Answer[], count: number): Mutant[] {
  const variants = Object.keys(MUTATIONS);
  const mutants: Mutant[] = [];
  for (let i = 0, at = 0; mutants.length < count; i++) {
    const variant = variants[i % variants.length]!;
    for (let tries = 0; tries < answers.length; tries++) {
      const answer = answers[at++ % answers.length]!;
      const mutated = MUTATIONS[variant]!(rng, answer);
      if (mutated === undefined) continue;
      const bytes = Buffer.isBuffer(mutated) ? mutated : answerBytes(mutated);
      mutants.push({ name: `${answer.name} with ${variant}`, variant, bytes });
      break;
    }
  }
  return mutants;
}
