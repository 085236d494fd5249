/** What a run knows of the client's bucket at its start, from its record, and the tokens that gives. */
import { describe, expect, it } from 'vitest';

import { bucketStartOf, judgeStart } from './bucket-start.js';

const target = (kind: 'embedded-mock' | 'loadproof-mock' | 'loopback-stub' | 'real') => ({
  baseUrl: 'http://127.0.0.1:1',
  kind,
  profile: null,
});

describe('bucketStartOf', () => {
  it("knows the embedded mock's bucket full, and of any other target only what the user declared", () => {
    expect(bucketStartOf({ target: target('embedded-mock') })).toEqual({ known: 'own-mock' });
    for (const kind of ['loadproof-mock', 'loopback-stub', 'real'] as const) {
      expect(bucketStartOf({ target: target(kind) })).toEqual({ known: 'nothing' });
      expect(bucketStartOf({ target: target(kind), idleBeforeMs: 60_000 })).toEqual({
        known: 'idle',
        idleBeforeMs: 60_000,
      });
    }
  });
});

describe('judgeStart', () => {
  it('gives the refill of the declared idle time, up to the capacity, and the idle time that fills it', () => {
    // The documented bucket: 501 tokens at 100 rpm, full after 5.01 minutes of quiet.
    expect(judgeStart({ known: 'nothing' }, 501, 100)).toMatchObject({ tokens: 0, full: false, fullAfterIdleS: 301 });
    expect(judgeStart({ known: 'idle', idleBeforeMs: 60_000 }, 501, 100)).toMatchObject({
      idleBeforeS: 60,
      tokens: 100,
      full: false,
      assumption: 'judged from 100.0 tokens at the start (declared: 1m idle before the run)',
    });
    expect(judgeStart({ known: 'idle', idleBeforeMs: 301_000 }, 501, 100)).toMatchObject({ tokens: 501, full: true });
    expect(judgeStart({ known: 'own-mock' }, 501, 100)).toMatchObject({ idleBeforeS: null, tokens: 501, full: true });
  });
});
