/**
 * A plan with no request is refused, and a run that measured nothing is never a pass.
 * Before, `rpm: 0.0000000001` (or 1 rpm Poisson over 30 s drawing none) was judged PASS, exit 0, with "—" for
 * every percentile. Now `plan` and `run` refuse it (exit 2, naming the phases that planned none, nothing
 * sent, not even a token call), and `report` on a folder that measured nothing does not say PASS.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';

const { stub } = serversFor(1);

const scenarioAt = (url: string, phases: string, extra = ''): string =>
  `name: nothing\ndescription: a plan of nothing\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n${phases}${extra}`;

const EMPTY_PLANS: Record<string, { phases: string; extra?: string; named: string[] }> = {
  'a mistyped rate (rpm: 0.0000000001)': {
    phases: '  - { name: steady, duration: 30s, rpm: 0.0000000001 }\n',
    named: ['phase "steady" (30s at 0.0000000001 rpm)'],
  },
  'a ramp of mistyped rates over two phases': {
    phases:
      '  - { name: up, duration: 1m, fromRpm: 0.0000000001, toRpm: 0.0000000002 }\n  - { name: hold, duration: 1m, rpm: 0.0000000001 }\n',
    named: ['phase "up" (1m at 0.0000000001 to 0.0000000002 rpm)', 'phase "hold" (1m at 0.0000000001 rpm)'],
  },
  '1 rpm Poisson over 30 s that draws none (seed 2)': {
    phases: '  - { name: steady, duration: 30s, rpm: 1 }\n',
    extra: 'arrivals: { process: poisson, seed: 2 }\n',
    named: ['phase "steady" (30s at 1 rpm, Poisson arrivals of seed 2)'],
  },
};

describe('a plan with no request is refused', () => {
  for (const [what, { phases, extra, named }] of Object.entries(EMPTY_PLANS)) {
    it(`${what}: plan and run exit 2, naming the phases, nothing sent`, async () => {
      const s = await stub();
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, phases, extra));
      for (const command of [
        ['plan', file],
        ['run', '--no-charts', file, '--out', out],
      ]) {
        const { code, stdout, stderr } = await runMain(command);
        expect(code, stdout + stderr).toBe(2);
        expect(stderr).toContain('phases: the plan holds no request');
        for (const phase of named) expect(stderr).toContain(phase);
        expect(stdout).not.toContain('PASS');
      }
      expect(s.counts).toMatchObject({ token: 0, identification: 0, other: 0 });
      expect(existsSync(out) ? runFolders(out) : []).toEqual([]);
    });
  }
});

describe('a run that measured nothing is never a pass', () => {
  it('every request unsent (a token call that hangs, then SIGINT): the run and `report` on its folder are inconclusive, not PASS', async () => {
    const s = await stub({ token: () => 'hang' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
    const cli = startCli(['run', '--no-charts', file, '--out', out]);
    for (let i = 0; i < 1000 && s.counts.token === 0; i++) await new Promise((r) => setTimeout(r, 10));
    cli.child.kill('SIGINT');
    expect((await cli.exited).code).toBe(130);
    const dir = join(out, runFolders(out)[0]!);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.counts).toMatchObject({ planned: 10, sent: 0, unsent: 10 });
    expect(summary.verdict.status).toBe('inconclusive');
    expect(summary.verdict.reasons).toContain(
      'phase steady: an answer measured: none of its 10 planned requests was answered (0 sent, 0 dropped, 10 unsent)',
    );
    const again = await runMain(['report', dir, '--no-charts']);
    expect(again.stdout).not.toContain('PASS');
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).verdict.status).toBe('inconclusive');
  });

  it('`report` on the folder of a plan that held no request (written before such plans were refused, judged PASS then): inconclusive, exit 5, never PASS', async () => {
    // test/fixtures/empty-plan-run: a folder loadproof 4f117ef wrote for `rpm: 0.0000000001` (run.json, scenario.yaml,
    // an empty events.ndjson).
    const dir = join(mkdtempSync(join(tmpdir(), 'loadproof-test-')), 'run');
    cpSync(fileURLToPath(new URL('../fixtures/empty-plan-run', import.meta.url)), dir, { recursive: true });
    const { code, stdout } = await runMain(['report', dir, '--no-charts']);
    expect(code).toBe(5);
    expect(stdout).not.toContain('PASS');
    expect(stdout).toContain(
      'phase steady: something measured: the plan held no request (it planned none): nothing was measured, so nothing can pass',
    );
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.verdict.status).toBe('inconclusive');
    expect(summary.phases[0].verdict).toBe('inconclusive');
  });
});
