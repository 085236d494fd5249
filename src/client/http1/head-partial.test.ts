/** A head checked as it arrives, resuming where it stopped, refuses what a check of the whole prefix refuses. */
import { describe, expect, it } from 'vitest';

import { checkPartialHead, HEAD_START, type HeadProgress } from './head-syntax.js';
import { ResponseParser } from './parser.js';

/** The first byte count at which checking the prefix from scratch throws, or undefined. */
function firstRefusalFromScratch(bytes: Buffer): number | undefined {
  for (let n = 1; n <= bytes.length; n++) {
    try {
      checkPartialHead(bytes.subarray(0, n));
    } catch {
      return n;
    }
  }
  return undefined;
}

/** The same, resuming from the previous prefix's progress each time (as the parser does, a byte at a time). */
function firstRefusalResuming(bytes: Buffer): number | undefined {
  let progress: HeadProgress = HEAD_START;
  for (let n = 1; n <= bytes.length; n++) {
    try {
      progress = checkPartialHead(bytes.subarray(0, n), progress);
    } catch {
      return n;
    }
  }
  return undefined;
}

const HEADS = [
  'HTTP/1.1 200 OK\r\nx-a: 1\r\nx-b: two words\r\n',
  'HTTP/1.1 200 OK\r\nx-a: 1\r\nbad name: 2\r\n',
  'HTTP/1.1 200 OK\r\nx-a: 1\rx-b: 2\r\n',
  'HTTP/1.1 200 OK\r\nx-a: 1\nx-b: 2\r\n',
  'HTTP/1.1 200 OK\r\nx-a: a\u0001b\r\n',
  'HTTP/1.1 200 OK\r\nx-a: a\u001bb\r\n',
  'HTTP/1.1 200 OK\nx-a: 1\r\n',
  'HTTP/1.1 200\rOK\r\n',
  'HTTP/2 200 OK\r\n',
  'HTTP/1.1 20x OK\r\nx-a: 1\r\n',
  'HTTP/1.1 200 OK\r\n: no name\r\n',
  'HTTP/1.1 200 OK\r\nx-a\u0000: 1\r\n',
];

describe('a head checked as it arrives', () => {
  it.each(HEADS)('%j: refused at the same byte as a check of the whole prefix, or not at all', (head) => {
    const bytes = Buffer.from(head, 'latin1');
    expect(firstRefusalResuming(bytes)).toBe(firstRefusalFromScratch(bytes));
  });

  it('the refusals above are real: all but the first head are refused', () => {
    const refused = HEADS.map((h) => firstRefusalFromScratch(Buffer.from(h, 'latin1')) !== undefined);
    expect(refused).toEqual([false, ...HEADS.slice(1).map(() => true)]);
  });

  it('the parser fed a long head a byte at a time reads it whole, and refuses a bad byte at that byte', () => {
    const lines = ['HTTP/1.1 200 OK', ...Array.from({ length: 300 }, (_, i) => `x-filler-${i}: ${'v'.repeat(40)}`)];
    const good = Buffer.from(`${lines.join('\r\n')}\r\ncontent-length: 2\r\n\r\nok`, 'latin1');
    const parser = new ResponseParser(64 * 1024);
    let answer;
    for (let i = 0; i < good.length; i++) answer = parser.push(good.subarray(i, i + 1)) ?? answer;
    expect(answer?.status).toBe(200);
    expect(answer?.headers['x-filler-299']).toBe('v'.repeat(40));
    expect(answer?.body.toString()).toBe('ok');

    const bad = Buffer.from(`${lines.join('\r\n')}\r\nx-late: a\u001bb`, 'latin1');
    const refusing = new ResponseParser(64 * 1024);
    let at = -1;
    for (let i = 0; i < bad.length && at < 0; i++) {
      try {
        refusing.push(bad.subarray(i, i + 1));
      } catch {
        at = i;
      }
    }
    expect(at).toBe(bad.indexOf(0x1b));
  });
});
