/**
 * The rate-limit envelope end to end: `loadproof run` through the built CLI's main() in-process
 * (runMain). burst.yaml spends the documented allowance exactly, so against the nominal mock its
 * 429s are timing, not findings. A mock whose limiter is 10 % tighter than documented is flagged:
 * envelope-tight.test.ts (two files, so that their waits overlap).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const BURST = fileURLToPath(new URL('../../scenarios/burst.yaml', import.meta.url));

function readSummary(out: string): any {
  const [folder] = runFolders(out);
  return JSON.parse(readFileSync(join(out, folder!, 'summary.json'), 'utf8'));
}

const envelopeChecks = (summary: any): any[] =>
  summary.verdict.checks.filter((c: any) => c.id === 'http_429_in_envelope');

describe('loadproof run: 429s judged against the envelope', () => {
  it(
    'burst.yaml at k = 20 against the nominal mock: no envelope finding (it spends the allowance exactly)',
    { timeout: 180_000 },
    async () => {
      // k = 20 (33 s of schedule; 77 s in all beside two CPU hogs and other work, hence the timeout; `npm run
      // soak:envelope` runs k = 20 ten times per shipped scenario). At k = 60, beside
      // two CPU hogs and other work on 2 cores, the generator's event loop stood still for 0.8 s: 48 s of model time in
      // which no answer was read, the 128 requests in flight filled up and 379 of the burst's 1,000 were dropped, a
      // failed error check and an unanswered p95 against a correct mock. At k = 20 the same stall is 16 s of model
      // time, and filling 128 slots at the burst's 200 rpm takes 2 s of wall time.
      const { file, out } = scenarioWorkspace(readFileSync(BURST, 'utf8'));
      const { code, stdout } = await runMain(['run', '--no-charts', file, '--time-scale', '20', '--out', out]);
      const summary = readSummary(out);
      expect(envelopeChecks(summary).map((c) => [c.phase, c.status, c.observed])).toEqual([
        ['warmup', 'pass', 0],
        ['burst', 'pass', 0],
        ['recovery', 'pass', 0],
      ]);
      expect(stdout).not.toContain('a finding against the service');
      // On a busy machine the latency check may be inconclusive (the generator's budget); nothing fails
      // against this correct mock. (Timeouts of a stalled process failed the error check at k = 60 beside
      // other load until deadlines were judged on model time: test/integration/stalled-loop-deadlines.test.ts.)
      const failed = summary.verdict.checks
        .filter((c: any) => c.status === 'fail')
        .map((c: any) => `${c.phase} ${c.id}: ${c.reason}`);
      expect(failed).toEqual([]);
      expect([0, 5]).toContain(code);
      for (const p of summary.phases)
        expect(p.envelope).toMatchObject({ findings: 0, marginTokens: summary.envelope.marginTokens });
      expect(summary.envelope.capacityTokens).toBe(501);
    },
  );
});
