/**
 * A 429 without Retry-After, end to end: the spec requires the header on every 429, so a run against a service that
 * leaves it out (nginx's limit_req does by default) says so in its notes: summary.json, the terminal and report.md.
 * A note, not a failed check. The built CLI's main() in-process (runMain) against an in-process mock that omits it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';
import { onlyRun, scenarioAt } from '../helpers/reconcile.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock } = serversFor(K);
/** A bucket of two tokens refilled at 100 rpm: 200 rpm meets a 429 for about every other request. */
const TWO_TOKENS = { sustainedRpm: 100, burstRpm: 101, burstMinutes: 1 };
const PHASE = '  - { name: steady, duration: 30s, rpm: 200 }\n';

describe('loadproof run: 429s without Retry-After are noted as the service missing its spec', () => {
  it('counts them, notes them in summary.json, the terminal and report.md, and fails nothing for them', async () => {
    const server = await mock({ limits: TWO_TOKENS, omitRetryAfter: true });
    const { file, out } = scenarioWorkspace(scenarioAt(server.url, PHASE));
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      file,
      '--time-scale',
      String(K),
      '--out',
      out,
    ]);
    const { dir, summary } = await onlyRun(out);
    const answers429 = summary.phases[0].envelope.http429;
    expect(answers429).toBeGreaterThan(10);
    expect(summary.overall.retryAfterMs.count).toBe(0);
    expect(summary.overall.http429WithoutRetryAfter).toBe(answers429);
    expect(summary.phases[0].http429WithoutRetryAfter).toBe(answers429);
    const note = `phase steady: ${answers429} of ${answers429} 429 answers came without a Retry-After in whole seconds, which the spec requires on every 429: the service does not meet its spec there (noted; it fails no check)`;
    expect(summary.verdict.notes).toContain(note);
    expect(stdout).toContain(`note: ${note}`);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      `${answers429} of them came without a Retry-After in whole seconds, which the spec requires on every 429: there the service does not meet its spec.`,
    );
    // The limiter refills at the documented rate, so from an unknown start its 429s are no finding: nothing fails.
    expect(summary.verdict.checks.filter((c: any) => c.status === 'fail')).toEqual([]);
    expect([0, 5], stderr).toContain(code);
  }, 90_000);

  it('with Retry-After on every 429, no such note', async () => {
    const server = await mock({ limits: TWO_TOKENS });
    const { file, out } = scenarioWorkspace(scenarioAt(server.url, PHASE));
    await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const { summary } = await onlyRun(out);
    expect(summary.phases[0].envelope.http429).toBeGreaterThan(10);
    expect(summary.overall.http429WithoutRetryAfter).toBe(0);
    expect(summary.overall.retryAfterMs.count).toBe(summary.phases[0].envelope.http429);
    expect(summary.verdict.notes.join('\n')).not.toContain('Retry-After');
  }, 90_000);
});
