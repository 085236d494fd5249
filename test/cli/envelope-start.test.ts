/**
 * The envelope's start, end to end: two runs back to back against one mock, as a user reruns or CI runs two
 * scenarios in a row. The first drains the client's bucket (501 tokens + 300 of refill for 900 requests); the
 * second's 429s are the limiter working as documented, not findings, and the run says it judged from an empty
 * bucket (nothing is known of the traffic before it). Both runs go through the built CLI's main() in-process
 * (runMain); the mock is in-process too, at a loopback URL, so the run cannot know it is fresh.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';
import { onlyRun, scenarioAt } from '../helpers/reconcile.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock } = serversFor(K);

describe('loadproof run right after another run: 429s of a bucket the first run drained are no finding', () => {
  it('3 minutes at 300 rpm, then 1 minute at 250 rpm against one mock at the documented limits', async () => {
    const server = await mock();
    const first = scenarioWorkspace(scenarioAt(server.url, '  - { name: first, duration: 3m, rpm: 300 }\n'));
    const firstRun = await runMain(['run', '--no-charts', first.file, '--time-scale', String(K), '--out', first.out]);
    // Its own verdict may suffer from a busy machine (latency, timeouts); its 429s, if any, are no finding either.
    expect([0, 1, 5], firstRun.stderr).toContain(firstRun.code);
    expect((await onlyRun(first.out)).summary.phases[0].envelope.findings).toBe(0);
    const second = scenarioWorkspace(scenarioAt(server.url, '  - { name: again, duration: 1m, rpm: 250 }\n'));
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      second.file,
      '--time-scale',
      String(K),
      '--out',
      second.out,
    ]);
    // Judged again from its folder too (readRun), with the same summary.
    const { dir, summary } = await onlyRun(second.out);
    const envelope = summary.phases[0].envelope;
    // The bucket held what refilled between the runs (a second or two of wall time: under 100 tokens at k = 20), and
    // refills 100 in the minute: 250 requests meet at least about 50 429s (over a hundred, seen: judged from a full
    // bucket, as before, 116 of them were findings).
    expect(envelope.http429).toBeGreaterThan(10);
    expect(envelope.findings).toBe(0);
    // From a full bucket, as the judge assumed before, nearly all of them were findings against a correct limiter.
    expect(envelope.ifFullAtStart).toBeGreaterThan(envelope.http429 / 2);
    expect(summary.envelope.start).toMatchObject({ known: 'nothing', idleBeforeS: null, tokens: 0, full: false });
    expect(code, stderr).toBe(5);
    expect(stdout).not.toContain('a finding against the service');
    const check = summary.verdict.checks.find((c: any) => c.id === 'http_429_in_envelope');
    // Nothing tells a drained bucket from a limiter tighter than documented: the check decides nothing, and says how
    // the client's idle time would decide it.
    expect(check.status).toBe('inconclusive');
    expect(summary.verdict.status).toBe('inconclusive');
    expect(check.reason).toContain(
      "judged from an empty bucket at the start (nothing is known of the client's traffic before the run)",
    );
    expect(check.reason).toContain(`but ${envelope.ifFullAtStart} would be findings from a full bucket`);
    expect(check.reason).toContain('loadproof report <run-folder> --idle-before 5m1s');

    // Declared after the run (falsely here: the client had just sent 900 requests), the full start is the judge's:
    // the 429s a full bucket would not give are findings, the reason says why, and run.json keeps it for later.
    const declared = await runMain(['report', '--no-charts', dir, '--idle-before', '10m']);
    expect(declared.code, declared.stderr).toBe(1);
    const again = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(again.phases[0].envelope.findings).toBe(envelope.ifFullAtStart);
    expect(again.envelope.start).toMatchObject({ known: 'idle', idleBeforeS: 600, full: true });
    // It rewrote the evidence: run.json records who declared it and when, and every finding says it came after the run.
    const { idleBefore, idleBeforeMs } = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    expect(idleBeforeMs).toBeUndefined();
    expect(idleBefore).toMatchObject({ ms: 600_000, declaredBy: 'report' });
    expect(new Date(idleBefore.at).toISOString()).toBe(idleBefore.at);
    const afterwards = `judged from a full bucket at the start (declared after the run (loadproof report, ${idleBefore.at}): 10m idle before the run)`;
    expect(declared.stdout).toContain(afterwards);
    const later = await runMain(['report', '--no-charts', dir]);
    expect(later.code).toBe(1);
    expect(later.stdout).toContain(afterwards);
    // The folder is what its manifest lists, and verify says what judges it that the run did not record.
    const verified = await runMain(['verify', dir]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain(
      `run.json: the client's idle time before the run (10m) was declared after it (loadproof report, ${idleBefore.at})`,
    );
    // A duration that is not one: bad input, named.
    const bad = await runMain(['report', '--no-charts', dir, '--idle-before', 'ten minutes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--idle-before: expected a duration such as 10m or 1h30m');
  }, 120_000);
});
