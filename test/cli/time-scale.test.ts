/**
 * Time scale: the same (shortened) documented suite at k = 1 and at k = 20, each against its own
 * embedded mock, gives the same verdicts and statistically compatible p95s. About 90 s of wall time,
 * nearly all of it the k = 1 run.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// Each phase long enough for ≥ 72 samples (the least that can bound a p95) after its warm-up.
const SUITE = `name: timescale
description: the documented profiles, shortened
phases:
  - { name: sustained, duration: 50s, rpm: 100, warmup: 5s }
  - { name: burst, duration: 25s, rpm: 200, warmup: 2s }
  - { name: spike, duration: 16s, rpm: 300, warmup: 1s }
`;

async function runAt(k: number): Promise<{ code: number | null; summary: any }> {
  const dir = mkdtempSync(join(tmpdir(), `loadproof-k${k}-`));
  writeFileSync(join(dir, 'suite.yaml'), SUITE);
  const { code } = await runCli(['run', join(dir, 'suite.yaml'), '--time-scale', String(k), '--out', join(dir, 'out')], {}, 150_000);
  const runDir = join(dir, 'out', readdirSync(join(dir, 'out'))[0]!);
  return { code, summary: JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) };
}

describe('time scale', () => {
  it('gives the same verdicts and compatible p95s at k = 1 and k = 20', { timeout: 180_000 }, async () => {
    const fast = await runAt(20);
    const real = await runAt(1);
    expect(real.code).toBe(fast.code);
    expect(real.summary.verdict.status).toBe(fast.summary.verdict.status);
    for (const [i, phase] of (real.summary.phases as any[]).entries()) {
      const other = fast.summary.phases[i];
      expect(phase.verdict).toBe(other.verdict);
      expect(phase.sent).toBe(other.sent);
      const p95 = (s: any) => s.verdict.checks.find((c: any) => c.id === 'latency_p95_target' && c.phase === phase.name);
      const [a, b] = [p95(real.summary), p95(fast.summary)];
      // Within noise: the two 95 % intervals overlap, and the estimates are within 25 %.
      expect(a.interval[0]).toBeLessThanOrEqual(b.interval[1]);
      expect(b.interval[0]).toBeLessThanOrEqual(a.interval[1]);
      expect(Math.abs(a.observed - b.observed) / b.observed).toBeLessThan(0.25);
    }
  });
});
