/**
 * The tool's own stalls, made on purpose (the embedded mock's thread busy at chosen requests: src/mock/test-stall.ts),
 * not by how busy the machine is: one long stall that holds the requests in the service then, and short ones often
 * enough that the mock's delay p99 is over the generator's budget. Against a degraded service the fail stands on each
 * request's own bound on the tool's share (events' toolMs), with the stall said; against a nominal one it is never a
 * fail. The stall is a busy loop in the mock's thread, so it holds on any machine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';

/** 25 ms every 8th identification request, and 400 ms at the 40th: 4 s of model time at k = 10. */
function stalls(): string {
  const list: string[] = [];
  for (let i = 4; i <= 100; i += 8) list.push(`${i}:25`);
  list.push('40:400');
  return list.join(',');
}

const SCENARIO =
  'name: tool-stall\ndescription: a run whose embedded mock stalls\nphases:\n  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n';

function runStalled(profile: string) {
  const { file, out } = scenarioWorkspace(SCENARIO);
  const args = ['run', '--no-charts', file, '--time-scale', '10', '--mock-profile', profile, '--out', out];
  return { out, done: runCli(args, { LOADPROOF_TEST_MOCK_STALL: stalls(), VITEST: 'true' }) };
}

function eventsOf(out: string): { latencyMs: number | null; toolMs?: number }[] {
  const [folder] = runFolders(out);
  return readFileSync(join(out, folder!, 'events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { latencyMs: number | null; toolMs?: number });
}

describe("run: the embedded mock's own stalls, per request", () => {
  it('a degraded service still fails: the stall held a few requests, not all of them', async () => {
    const { out, done } = runStalled('degraded');
    const { code, stdout, stderr } = await done;
    expect(code, stdout + stderr).toBe(1);
    // The stall is said, and what the fail rests on.
    expect(stdout).toMatch(/the embedded mock fell behind by up to \S+ \(wall\)/);
    // The long stall is the one said (the loop monitor's resolution, 10 ms, taken off).
    const [folder] = runFolders(out);
    const summary = JSON.parse(readFileSync(join(out, folder!, 'summary.json'), 'utf8'));
    expect(summary.generator.mockLag.maxWallMs).toBeGreaterThanOrEqual(350);
    expect(stdout).toMatch(
      /with each request's own bound on the tool's share taken off it \([^)]*\), p\(95\) [\d.]+s, interval [\d.]+s–[\d.]+s: still not < 2\.50s/,
    );
    const events = eventsOf(out);
    expect(events.every((e) => e.toolMs !== undefined && e.toolMs >= 0)).toBe(true);
    // The requests the long stall held carry it (× k); most carry much less.
    const bounds = events.map((e) => e.toolMs!).sort((a, b) => a - b);
    expect(bounds.at(-1)).toBeGreaterThan(3000);
    expect(bounds[Math.floor(bounds.length / 2)]).toBeLessThan(3000);
  });

  it('a nominal service is never failed by the stalls', async () => {
    const { done } = runStalled('nominal');
    const { code, stdout, stderr } = await done;
    expect([0, 5], stdout + stderr).toContain(code);
  });

  it('refuses the test-only stall outside a test run: exit 2, before the mock listens', async () => {
    const { file, out } = scenarioWorkspace(SCENARIO);
    const { code, stderr } = await runCli(['run', '--no-charts', file, '--time-scale', '10', '--out', out], {
      LOADPROOF_TEST_MOCK_STALL: '40:400',
      VITEST: '',
    });
    expect(code).toBe(2);
    expect(stderr).toContain("LOADPROOF_TEST_MOCK_STALL is for loadproof's own tests only");
  });
});
