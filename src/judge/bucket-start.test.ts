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

describe('bucketStartOf: who declared the idle time', () => {
  it('says a declaration made after the run (report) as such; one made by run, or of an older folder, as declared', () => {
    const at = '2026-11-27T18:00:00.000Z';
    const start = (idleBefore: { ms: number; declaredBy: 'run' | 'report'; at: string }) =>
      judgeStart(bucketStartOf({ target: target('real'), idleBefore }), 501, 100).assumption;
    expect(start({ ms: 600_000, declaredBy: 'report', at })).toBe(
      `judged from a full bucket at the start (declared after the run (loadproof report, ${at}): 10m idle before the run)`,
    );
    expect(start({ ms: 600_000, declaredBy: 'run', at })).toBe(
      'judged from a full bucket at the start (declared: 10m idle before the run)',
    );
    // A folder written before declarations were recorded: its idle time still judges it.
    expect(bucketStartOf({ target: target('real'), idleBeforeMs: 600_000 })).toEqual({
      known: 'idle',
      idleBeforeMs: 600_000,
    });
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
