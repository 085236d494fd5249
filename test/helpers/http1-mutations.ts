/**
 * Ill-formed (or oddly formed) HTTP/1.x answers: one mutation of a generated answer each (http1-answers.ts), from
 * the faults a gateway or an attacker might send: Transfer-Encoding beside Content-Length, duplicate or conflicting
 * lengths, obs-fold, bad chunk sizes, missing CRLFs, LF-only lines, NUL bytes, over-long heads, bytes after the answer.
 */
import { nextInt, pick, type Rng } from '../../src/core/rng.js';
import { type Answer, answerBytes, line } from './http1-answers.js';

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
