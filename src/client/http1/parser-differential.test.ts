/**
 * Our HTTP/1.1 response parser against a reference: llhttp, Node's own parser, through node:http reading the same
 * bytes from a raw server on 127.0.0.1. Generated answers (seeded) must read the same in both: accepted or not,
 * status, the headers our client reads, body, where the answer ends and whether the connection is kept. Fuzzed
 * answers (mutations of those) too, but for the differences we keep on purpose, each listed below with its reason
 * and an example. Any other difference is a bug in one of the two: parser-findings.test.ts says which, one per finding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { answerBytes, generateAnswer } from '../../../test/helpers/http1-answers.js';
import { fuzzAnswers, MUTATIONS } from '../../../test/helpers/http1-mutations.js';
import { differences, type Reading, readWithLlhttp, readWithOurs } from '../../../test/helpers/http1-readings.js';
import { LlhttpReference } from '../../../test/helpers/llhttp-reference.js';
import { createRng } from '../../core/rng.js';
import { ResponseParser } from './parser.js';

/** How many of each: bounded, seeded (the same cases every run), a few seconds on a busy machine. */
const GENERATED = 150;
const FUZZED = 400;
/** Readings over loopback at once: enough to overlap the round trips, few enough for 2 busy cores. */
const AT_ONCE = 6;

interface Accepted {
  /** The fields that may differ (where the outcome does, every field may). */
  readonly differs: readonly (keyof Reading)[];
  /** What each reads there, where it is always the same. */
  readonly ours: Partial<Reading>;
  readonly llhttp: Partial<Reading>;
  readonly why: string;
  /** An answer that shows it. */
  readonly example: string;
}

/** The differences kept on purpose, by the mutation that makes them (test/helpers/http1-mutations.ts). */
const ACCEPTED: Readonly<Record<string, Accepted>> = {
  'content-length twice, equal': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'RFC 9110 §8.6 lets a recipient read repeated identical Content-Length values as one; llhttp refuses them',
    example: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
  },
  'content-length list, equal': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'the same, as one list: "2, 2" is one valid length (RFC 9110 §8.6)',
    example: 'HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\n{}',
  },
  'HTTP version other than 1.0 and 1.1': {
    differs: ['outcome'],
    ours: { outcome: 'refused' },
    llhttp: { outcome: 'answer' },
    why: 'we read HTTP/1.0 and HTTP/1.1 only; llhttp reads an HTTP/0.9 or HTTP/2.0 status line as if it were 1.x',
    example: 'HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\n{}',
  },
  'status below 100': {
    differs: ['outcome'],
    ours: { outcome: 'refused' },
    llhttp: { outcome: 'answer' },
    why: 'RFC 9110 §15: a status code is 100 to 599 (600 to 999 are read, as llhttp does, for the gateways that send them); llhttp also reads 000 to 099 as a final answer',
    example: 'HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\n{}',
  },
  'unrequested 101 Switching Protocols': {
    differs: ['outcome'],
    ours: { outcome: 'refused' },
    llhttp: {},
    why: 'we never ask to switch protocols, so what follows a 101 is not HTTP/1.1 for us (RFC 9110 §15.2.2); llhttp ends the exchange there, as an upgrade (node:http gives the 101 as the answer, or drops the connection where it says Connection: upgrade)',
    example: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}',
  },
  'whitespace after a chunk size': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'RFC 9112 §7.1.1 allows whitespace (BWS) before the ";" of a chunk extension; llhttp refuses it. Whitespace with no extension after it is refused by both',
    example: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 ;x\r\n{}\r\n0\r\n\r\n',
  },
  'chunk extension syntax': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'the same around the "=" of an extension (RFC 9112 §7.1.1); an extension that breaks the grammar is refused by both',
    example: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2; a = b\r\n{}\r\n0\r\n\r\n',
  },
  'bare LF in chunked framing': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'RFC 9112 §2.2 lets a recipient take a bare LF for a line end; we do so in chunked framing, where the sizes leave no doubt where a line ends (in the head we refuse it); llhttp refuses it',
    example: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\n0\n\n',
  },
  'Connection: keep-alive and close, HTTP/1.0': {
    differs: ['keepAlive'],
    ours: { keepAlive: false },
    llhttp: { keepAlive: true },
    why: 'a "close" option means the server closes after this answer (RFC 9112 §9.6), whatever else the header says; llhttp keeps such an HTTP/1.0 connection, a bug in llhttp',
    example: 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}',
  },
  'tab after the Content-Length value': {
    differs: ['outcome'],
    ours: { outcome: 'answer' },
    llhttp: { outcome: 'refused' },
    why: 'the whitespace around a value is spaces and tabs, no part of it (RFC 9110 §5.5); llhttp takes a trailing tab for part of a Content-Length, a bug in llhttp',
    example: 'HTTP/1.1 200 OK\r\nContent-Length: 2\t\r\n\r\n{}',
  },
  'tab after the Transfer-Encoding value': {
    differs: ['body', 'endsAt', 'keepAlive'],
    ours: {},
    llhttp: { endsAt: 'close', keepAlive: false },
    why: 'the same: llhttp does not see "chunked" followed by a tab, and reads the chunks as a body to the close, a bug in llhttp',
    example: 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\t\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
  },
  'tab after the Connection value': {
    differs: ['keepAlive'],
    ours: {},
    llhttp: {},
    why: 'the same: llhttp does not see "close" or "keep-alive" followed by a tab, a bug in llhttp',
    example: 'HTTP/1.1 200 OK\r\nConnection: close\t\r\nContent-Length: 2\r\n\r\n{}',
  },
};

/** Where `ours` and `llhttp` differ, outside what `accepted` allows: a list of reasons (empty: as expected). */
function unexpected(ours: Reading, llhttp: Reading, accepted: Accepted | undefined): string[] {
  const found = differences(ours, llhttp);
  if (found.length === 0 || accepted === undefined) return found;
  const fields = found.map((d) => d.slice(0, d.indexOf(':')) as keyof Reading);
  const allowed = accepted.differs.includes('outcome') || fields.every((f) => accepted.differs.includes(f));
  const as = (r: Reading, expected: Partial<Reading>): boolean =>
    Object.entries(expected).every(([k, v]) => r[k as keyof Reading] === v);
  return allowed && as(ours, accepted.ours) && as(llhttp, accepted.llhttp) ? [] : found;
}

/** Reads every case both ways, AT_ONCE at a time; the cases that differ unexpectedly, with how. */
async function compare(
  reference: LlhttpReference,
  cases: readonly { name: string; bytes: Buffer; variant?: string }[],
): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const ours = readWithOurs(c.bytes);
      const llhttp = await readWithLlhttp(reference, c.bytes, ours);
      const found = unexpected(ours, llhttp, c.variant === undefined ? undefined : ACCEPTED[c.variant]);
      if (found.length > 0)
        failures.push(
          `${c.name}: ${JSON.stringify(c.bytes.toString('latin1').slice(0, 300))}\n  ${found.join('\n  ')}`,
        );
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return failures;
}

const generated = (() => {
  const rng = createRng(29);
  return Array.from({ length: GENERATED }, (_, i) => generateAnswer(rng, i));
})();

describe("our HTTP/1.1 response parser against llhttp (Node's own parser) on the same bytes", () => {
  let reference: LlhttpReference;
  beforeAll(async () => (reference = await LlhttpReference.start()));
  afterAll(() => reference.close());

  it('reads every generated answer as llhttp does: status, headers, body, where it ends, keep-alive', async () => {
    const cases = generated.map((a) => ({ name: a.name, bytes: answerBytes(a) }));
    expect(await compare(reference, cases)).toEqual([]);
    // The generator's answers are well-formed: a test that cannot fail would say nothing.
    expect(cases.filter((c) => readWithOurs(c.bytes).outcome !== 'answer').map((c) => c.name)).toEqual([]);
  });

  it('reads every fuzzed answer as llhttp does, but for the listed differences kept on purpose', async () => {
    const rng = createRng(2929);
    const cases = fuzzAnswers(rng, generated, FUZZED);
    expect(await compare(reference, cases)).toEqual([]);
    // Every mutation was tried, and every accepted difference is one a mutation makes.
    expect([...new Set(cases.map((c) => c.variant))].sort()).toEqual(Object.keys(MUTATIONS).sort());
    expect(Object.keys(ACCEPTED).filter((variant) => MUTATIONS[variant] === undefined)).toEqual([]);
  });

  it.each(Object.entries(ACCEPTED))('differs from llhttp on purpose: %s', async (_, accepted) => {
    const bytes = Buffer.from(accepted.example, 'latin1');
    const ours = readWithOurs(bytes);
    const llhttp = await readWithLlhttp(reference, bytes, ours);
    expect(differences(ours, llhttp)).not.toEqual([]);
    expect(ours).toMatchObject(accepted.ours);
    expect(llhttp).toMatchObject(accepted.llhttp);
  });
});

describe('our parser reads an answer the same however its bytes arrive', () => {
  /** What the parser makes of `pieces`, then the close: the answer, or the error's code. */
  const parse = (pieces: readonly Buffer[]): string => {
    const parser = new ResponseParser();
    try {
      let r;
      for (const piece of pieces) r ??= parser.push(piece);
      r ??= parser.end();
      if (r === undefined) return 'nothing';
      return JSON.stringify({ ...r, body: r.body.toString('latin1') });
    } catch (error) {
      return String((error as { code?: string }).code);
    }
  };

  it('whole, split in two at every byte, and byte by byte', () => {
    for (const answer of generated) {
      const bytes = answerBytes(answer);
      const whole = parse([bytes]);
      expect(whole, answer.name).not.toMatch(/^HPE|^ECONN|^LOADPROOF|^nothing/);
      for (let at = 1; at < bytes.length; at++)
        if (parse([bytes.subarray(0, at), bytes.subarray(at)]) !== whole)
          expect(parse([bytes.subarray(0, at), bytes.subarray(at)]), `${answer.name} split at ${at}`).toBe(whole);
      const single = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
      expect(parse(single), `${answer.name} byte by byte`).toBe(whole);
    }
  });
});
