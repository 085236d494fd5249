/**
 * What the differential test against llhttp (parser-differential.test.ts) found, one test per finding, each saying
 * which parser was wrong. Where ours was, the test failed before the fix; where llhttp is, the difference is kept in
 * that file's table of accepted differences.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { differences, readWithLlhttp, readWithOurs } from '../../../test/helpers/http1-readings.js';
import { LlhttpReference } from '../../../test/helpers/llhttp-reference.js';
import { ResponseParser } from './parser.js';

let reference: LlhttpReference;
beforeAll(async () => (reference = await LlhttpReference.start()));
afterAll(() => reference.close());

/** Our parser and llhttp read each answer alike (a list of what differs, by answer: empty when none does). */
async function unlike(answers: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const answer of answers) {
    const bytes = Buffer.from(answer, 'latin1');
    const ours = readWithOurs(bytes);
    const diff = differences(ours, await readWithLlhttp(reference, bytes, ours));
    if (diff.length > 0) found.push(`${JSON.stringify(answer)}: ${diff.join('; ')}`);
  }
  return found;
}

/** The code our parser throws on `answer` pushed whole, before any close; 'none' when it throws nothing. */
function refusedAtOnce(answer: string): string {
  try {
    new ResponseParser().push(Buffer.from(answer, 'latin1'));
    return 'none';
  } catch (error) {
    return String((error as { code?: string }).code);
  }
}

const OK = 'HTTP/1.1 200 OK\r\n';
const CHUNKED = `${OK}Transfer-Encoding: chunked\r\n\r\n`;

describe('findings of the differential test: ours was wrong', () => {
  it('refuses a header name that is not a token (ours read "Content-Length :" as another header and read to the close)', async () => {
    expect(
      await unlike([
        `${OK}Content-Length : 2\r\n\r\n{}`,
        `${OK} Content-Length: 2\r\n\r\n{}`,
        `${OK}X\tY: 1\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X{Y}: 1\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X\u00e9: 1\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X\x00: 1\r\nContent-Length: 2\r\n\r\n{}`,
      ]),
    ).toEqual([]);
  });

  it('refuses a control character in a header value (NUL, CR, DEL…: ours kept them, or trimmed them away)', async () => {
    expect(
      await unlike([
        `${OK}X-A: a\x00b\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X-A: \x01\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X-A: a\x7f\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}X-A: a\rb\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}Content-Length: 2\r\r\n\r\n{}`,
        `${OK}Content-Length: 2\x0b\r\n\r\n{}`,
      ]),
    ).toEqual([]);
  });

  it('trims only spaces and tabs around a value, not a no-break space (ours took "2\\u00a0" for a length)', async () => {
    expect(
      await unlike([
        `${OK}Content-Length: 2\u00a0\r\n\r\n{}`,
        `${OK}Content-Type: text/plain\u00a0\r\nContent-Length: 2\r\n\r\n{}`,
        `${OK}Transfer-Encoding: chunked\u00a0\r\n\r\n{}`,
      ]),
    ).toEqual([]);
  });

  it('refuses a bare LF in the head at once (ours waited for a CRLF CRLF until the close or the size limit)', async () => {
    const answers = [
      `${OK}Content-Length: 2\n\n{}`,
      'HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\n{}',
      `${OK}X: a\nb\r\n\r\n`,
    ];
    expect(await unlike(answers)).toEqual([]);
    // At once: before the connection closes, so a server that keeps it open gets a parse error, not a timeout.
    expect(answers.map(refusedAtOnce)).toEqual(['HPE_INVALID_HEADER', 'HPE_INVALID_STATUS', 'HPE_INVALID_HEADER']);
  });

  it('refuses Transfer-Encoding beside Content-Length (a sign of response splitting, RFC 9112 §6.3; ours read the chunks)', async () => {
    expect(
      await unlike([
        `${OK}Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
        `${OK}Content-Length: 5\r\nTransfer-Encoding: gzip\r\n\r\nabcde`,
      ]),
    ).toEqual([]);
  });

  it('reads Connection as a list of options (ours closed on "closed" and kept HTTP/1.0 open on "keep-alive-x")', async () => {
    expect(
      await unlike([
        `${OK}Connection: closed\r\nContent-Length: 0\r\n\r\n`,
        'HTTP/1.0 200 OK\r\nConnection: keep-alive-x\r\nContent-Length: 0\r\n\r\n',
        `${OK}Connection: x, close , y\r\nContent-Length: 0\r\n\r\n`,
        'HTTP/1.0 200 OK\r\nConnection: x,Keep-Alive\r\nContent-Length: 0\r\n\r\n',
      ]),
    ).toEqual([]);
  });

  it('reads a chunk size with leading zeros past 8 digits (ours refused "000000002")', async () => {
    expect(await unlike([`${CHUNKED}000000002\r\n{}\r\n0000000000\r\n\r\n`])).toEqual([]);
  });

  it('refuses an ill-formed trailer line (ours skipped trailers unread)', async () => {
    expect(
      await unlike([
        `${CHUNKED}2\r\n{}\r\n0\r\nno colon\r\n\r\n`,
        `${CHUNKED}2\r\n{}\r\n0\r\nX-T: a\x01\r\n\r\n`,
        `${CHUNKED}2\r\n{}\r\n0\r\nX T: a\r\n\r\n`,
      ]),
    ).toEqual([]);
  });

  it('refuses an ill-formed chunk-size line: a control character, a bare CR, a broken extension (ours ignored all after the size)', async () => {
    expect(
      await unlike([
        `${CHUNKED}2;a\x01\r\n{}\r\n0\r\n\r\n`,
        `${CHUNKED}2;a=b\rx\r\n{}\r\n0\r\n\r\n`,
        `${CHUNKED}2\r\n{}\r\n0;lastX-Trailer-0: t0\r\n\r\n`,
        `${CHUNKED}2;\r\n{}\r\n0\r\n\r\n`,
        `${CHUNKED}2 \r\n{}\r\n0\r\n\r\n`,
      ]),
    ).toEqual([]);
  });

  it('refuses an ill-formed head at once, while it is still arriving (ours waited for its blank line)', async () => {
    const answers = [`${OK}Content-Length: 2\r\nf&'X\u00c2u`, 'SSH-2.0-OpenSSH_9.6', `${OK}Content-Length: 2\r\n X`];
    expect(await unlike(answers)).toEqual([]);
    expect(answers.map(refusedAtOnce)).toEqual(['HPE_INVALID_HEADER', 'HPE_INVALID_STATUS', 'HPE_INVALID_HEADER']);
  });

  it('refuses a status below 100 at once (ours took it for an interim answer and waited for another)', () => {
    expect(refusedAtOnce(`HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\n{}`)).toBe('HPE_INVALID_STATUS');
  });

  it('refuses an unrequested 101 (ours skipped it as interim and read what followed as HTTP/1.1)', () => {
    expect(refusedAtOnce(`HTTP/1.1 101 Switching Protocols\r\n\r\n${OK}Content-Length: 2\r\n\r\n{}`)).toBe(
      'HPE_INVALID_STATUS',
    );
  });
});
