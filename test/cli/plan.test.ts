/**
 * `loadproof plan`: the dry run's table, JSON, and bad scenario files. The first case runs the CLI as
 * a child process; the others run the built CLI's main() in-process (runMain).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runCli, runMain } from '../helpers/cli.js';

function scenarioFile(text: string, name = 'scenario.yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'loadproof-plan-')), name);
  writeFileSync(file, text);
  return file;
}

describe('loadproof plan', () => {
  it('prints the phases, counts, durations, bands and targets of a shipped scenario, with the wall time at a time scale', async () => {
    const { code, stdout, stderr } = await runCli(['plan', 'scenarios/ci-regression.yaml', '--time-scale', '20']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toContain('Duration: 13m of model time; at time scale 20 it runs in 39s of wall time');
    expect(stdout).toMatch(/2 +burst +200 rpm +4m +800 +burst +< 4s +30s/);
    expect(stdout).toMatch(/total +13m +1750/);
    expect(stdout).toContain('Nothing was sent: plan is a dry run.');
  });

  it('prints JSON with --json, and notes a phase above the documented envelope', async () => {
    const file = scenarioFile('name: hot\ndescription: too hot\nphases:\n  - { name: a, duration: 6m, rpm: 350 }\n');
    const { code, stdout } = await runMain(['plan', file, '--json']);
    expect(code).toBe(0);
    const plan = JSON.parse(stdout);
    expect(plan).toMatchObject({
      scenario: 'hot',
      requests: 2100,
      durationMs: 360_000,
      phases: [
        {
          name: 'a',
          requests: 2100,
          bands: [{ band: null, p95TargetMs: null, fromRpm: 350, toRpm: 350, arrivals: 2100 }],
        },
      ],
    });
    expect(plan.notes).toEqual([
      'phase a: its arrivals come above 300 rpm, where the spec documents no p95 target',
      'phase a runs at 350 rpm for 6m: longer than the documented 5 minutes of a spike',
    ]);
  });

  it('exits 2 listing every problem of a bad scenario, with field paths', async () => {
    const file = scenarioFile('name: bad\nphases:\n  - { name: a, duration: 5 minutes, rpm: -5, color: red }\n');
    const { code, stdout, stderr } = await runMain(['plan', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(`loadproof: SCENARIO_INVALID: ${file}: 4 problems`);
    expect(stderr).toContain('✖ description: missing; expected a string\n');
    expect(stderr).toContain(
      '✖ phases[0].duration: expected a duration like "90s", "5m" or "1m30s" (units ms, s, m, h; each at most once, largest first), greater than zero, got "5 minutes"',
    );
    expect(stderr).toContain('✖ phases[0].rpm: expected rpm > 0 (requests per minute), got -5');
    expect(stderr).toContain('✖ phases[0].color: unknown field');
    expect(stderr).toContain('hint: nothing was sent');
  });

  it('says of a mock at a URL that its profile is what that server runs, not a guess', async () => {
    const file = scenarioFile(
      'name: at-url\ndescription: d\ntarget: { environment: mock, baseUrl: "http://127.0.0.1:9" }\nphases:\n  - { name: a, duration: 1m, rpm: 60 }\n',
    );
    const { code, stdout } = await runMain(['plan', file]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Target: mock at http://127.0.0.1:9 (its profile and time scale are read from its /__mock/stats when the run starts; a server without them runs in real time, profile unknown)',
    );
    expect(stdout).not.toContain('profile nominal');
  });

  it('refuses a profile for a mock at a URL, which runs its own (exit 2)', async () => {
    const file = scenarioFile(
      'name: at-url\ndescription: d\ntarget: { environment: mock, baseUrl: "http://127.0.0.1:9", profile: degraded }\nphases:\n  - { name: a, duration: 1m, rpm: 60 }\n',
    );
    const { code, stderr } = await runMain(['plan', file]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'target.profile: the profile applies to the embedded mock (no baseUrl); the server at baseUrl runs its own (start it with loadproof mock --profile degraded), got "degraded"',
    );
  });

  it('exits 2 for a bad --time-scale', async () => {
    const { code, stderr } = await runMain(['plan', 'scenarios/sustained.yaml', '--time-scale', '-1']);
    expect(code).toBe(2);
    expect(stderr).toContain('--time-scale: expected a number from 1 to 1000, got -1');
  });
});
