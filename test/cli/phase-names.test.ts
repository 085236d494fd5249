/**
 * Phase names are the user's text, never keys into our objects: phases named after members of Object.prototype
 * run to the end and are reported. The thresholds of a phase were looked up as `byPhase[p.name]`, so
 * a phase named toString without thresholds of its own got Object.prototype.toString, and the run
 * crashed after the whole load (`… is not iterable`, exit 4, no summary.json). Two of the four have
 * thresholds (judged under their own names), two have none (the lookup that crashed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const K = 20;
const NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty'];
const WITH_THRESHOLDS = ['constructor', 'valueOf'];

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('phases named constructor, toString, valueOf and hasOwnProperty', () => {
  it(
    'run to the end, each judged on its own thresholds (or none), and summary.json names all four',
    { timeout: 90_000 },
    async () => {
      const s = (server = await startMockServer({ timeScale: K }));
      // 4 × 20 s at 30 rpm: 40 requests, 4 s of wall time at k = 20.
      const w = scenarioWorkspace(
        [
          'name: proto-phases',
          'description: phase names that are members of Object.prototype',
          `target: { environment: mock, baseUrl: "${s.url}" }`,
          'phases:',
          ...NAMES.map((name) => `  - { name: ${name}, duration: 20s, rpm: 30 }`),
          'thresholds:',
          '  documentedTargets: false',
          '  byPhase:',
          ...WITH_THRESHOLDS.map((name) => `    ${name}: ["count(dropped) == 0"]`),
          '',
        ].join('\n'),
      );
      const { code, stderr } = await runMain(['run', w.file, '--time-scale', String(K), '--out', w.out]);
      expect(stderr).not.toContain('internal error');
      const runs = runFolders(w.out);
      expect(runs).toHaveLength(1);
      const summary = JSON.parse(readFileSync(join(w.out, runs[0]!, 'summary.json'), 'utf8'));
      // A pass; or, on a busy machine, inconclusive for the generator's own budget and nothing else.
      const undecided = summary.verdict.checks
        .filter((c: { status: string }) => c.status !== 'pass')
        .map((c: { id: string }) => c.id);
      if (code === 5) expect(undecided.every((id: string) => id === 'generator_lag')).toBe(true);
      else expect(code, stderr).toBe(0);
      expect(summary.phases.map((p: { name: string }) => p.name)).toEqual(NAMES);
      expect(summary.counts.planned).toBe(40);
      // Each phase's own threshold was judged, under its own name.
      const thresholdChecks = summary.verdict.checks.filter((c: { id: string }) => c.id === 'threshold');
      expect(thresholdChecks.map((c: { phase: string }) => c.phase)).toEqual(WITH_THRESHOLDS);
      for (const check of thresholdChecks) expect(check.status).toBe('pass');
    },
  );
});
