import { describe, expect, it } from 'vitest';

import { EXIT, exitUnder } from './exit-codes.js';

describe('--inconclusive', () => {
  it('maps only an inconclusive verdict: to 1 under fail, 0 under pass, 5 under exit5', () => {
    expect([exitUnder('fail', 5), exitUnder('pass', 5), exitUnder('exit5', 5)]).toEqual([1, 0, 5]);
  });

  it('never turns a failure, a failed run or an interruption into anything else', () => {
    for (const policy of ['fail', 'pass', 'exit5'] as const) {
      expect(
        [EXIT.pass, EXIT.slaNotMet, EXIT.badInput, EXIT.refusedByGuard, EXIT.runFailed, EXIT.interrupted].map((c) =>
          exitUnder(policy, c),
        ),
      ).toEqual([0, 1, 2, 3, 4, 130]);
    }
  });
});
