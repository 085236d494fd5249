/**
 * Goodput of a run stopped by SIGINT: the requests answered 2xx ÷ the model minutes the phase actually ran, not
 * its planned length. A phase offered 60 rpm, all answered by the nominal mock, and stopped early still served
 * about 60 rpm; dividing by the planned 10 minutes would tell support the service accepted a fraction of that (and
 * a trend over such runs would show a drop that never happened).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runFolders, scenarioWorkspace, startCli } from '../helpers/cli.js';

const K = 20;
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('goodput of an interrupted run', () => {
  it('is 2xx ÷ the model minutes the phase ran, not its planned length', async () => {
    server = await startMockServer({ timeScale: K });
    const s = server;
    const { file, out } = scenarioWorkspace(
      `name: stopped\ndescription: stopped early\ntarget:\n  environment: mock\n  baseUrl: ${s.url}\nphases:\n  - { name: long, duration: 10m, rpm: 60 }\n`,
    );
    const cli = startCli(['run', '--no-charts', '--quiet', file, '--time-scale', String(K), '--out', out]);
    // At least 30 requests answered (half a model minute), bounded in time, then interrupt.
    for (let i = 0; i < 2400 && s.stats().requests.identification.received < 30; i++)
      await new Promise((r) => setTimeout(r, 25));
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(130);
    const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
    expect(summary.interrupted).toBe(true);
    const phase = summary.phases[0];
    expect(phase.outcomes.ok).toBeGreaterThanOrEqual(30);
    expect(phase.outcomes.ok).toBe(phase.sent);
    // Every request sent was answered 2xx at the rate offered: goodput near 60 rpm, whatever the stop time.
    expect(phase.goodputRpm).toBeGreaterThan(48);
    expect(summary.overall.goodputRpm).toBeGreaterThan(48);
  }, 120_000);
});
