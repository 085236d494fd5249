/**
 * `plan` predicts where the first 429 comes, from the limits the scenario is judged by; a run
 * against the embedded mock, which takes the limits the scenario says support raised, sees it within one
 * step of the prediction.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

// Limits as support might have set them (30 rpm sustained, 60 for 2 minutes: a bucket of 61), the scenario's own.
const STEPS = [30, 45, 60, 75, 90];
const SCENARIO = `name: steps\ndescription: five steps up against tight limits\nphases:\n${STEPS.map((r) => `  - { name: step-${r}, duration: 1m, rpm: ${r} }\n`).join('')}limits: { sustainedRpm: 30, burstRpm: 60, burstMinutes: 2, reference: TIGHT-MOCK }\n`;

describe('the predicted 429 onset', () => {
  it('is shown by plan, and a run against a mock with those limits meets its first 429 within one step of it', async () => {
    const ws = scenarioWorkspace(SCENARIO);
    const plan = await runMain(['plan', ws.file]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'Predicted 429s, from the limits raised by support (TIGHT-MOCK): a bucket of 61 tokens refilled at 30 rpm, assuming the client sent nothing for 2m2s before the start (a full bucket); first attempts, retries come on top:',
    );
    expect(plan.stdout).toMatch(
      /step-30 +none expected\n +step-45 +none expected\n +step-60 +none expected\n +step-75 +\d+ of 75 refused, the first at 3m\d/,
    );
    expect(plan.stdout).toContain('→ the plan probes the limit: the first 429 is expected in step-75');
    const json = JSON.parse((await runMain(['plan', ws.file, '--json'])).stdout);
    const predicted = json.predicted429s.findIndex((p: { firstAtMs: number | null }) => p.firstAtMs !== null);
    expect(predicted).toBe(3);

    const run = await runMain(['run', '--no-charts', ws.file, '--time-scale', '120', '--out', ws.out]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    const summary = JSON.parse(readFileSync(join(ws.out, runFolders(ws.out)[0]!, 'summary.json'), 'utf8'));
    const seen = summary.phases.findIndex((p: { outcomes: { http_429: number } }) => p.outcomes.http_429 > 0);
    expect(seen).toBeGreaterThanOrEqual(0);
    expect(Math.abs(seen - predicted)).toBeLessThanOrEqual(1);
  });

  it('a scenario that raises the sustained rate alone runs against the embedded mock (its burst at least the sustained rate)', async () => {
    const ws = scenarioWorkspace(
      'name: raised\ndescription: d\nphases: [{ name: a, duration: 30s, rpm: 300 }]\nlimits: { sustainedRpm: 400, reference: SUP-1 }\n',
    );
    const run = await runMain([
      'run',
      '--no-charts',
      ws.file,
      '--time-scale',
      '120',
      '--mock-profile',
      'tight',
      '--out',
      ws.out,
    ]);
    expect(run.stderr).toContain(
      "--mock-profile tight: its identification limits are replaced by the scenario's raised ones (400 rpm sustained, 400 for 5 min, 128 in flight)",
    );
    // It runs (it used to exit 2: the mock refused a burst below the sustained rate). With burst = sustained the
    // bucket holds one token, so bunched arrivals may meet 429s: the verdict is whatever it is, not bad input.
    expect(run.code).not.toBe(2);
    expect(runFolders(ws.out)).toHaveLength(1);
  });
});
