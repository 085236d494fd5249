// npm run bench:time-scale — time-scale fidelity: the same shortened documented suite (sustained,
// burst, spike) through the real CLI against the embedded mock at k = 1 and at k = 20 (BENCH_SCALES
// to change them), printing each phase's p95 and verdict, and the ratio of p95 at k to p95 at k = 1.
// Verdicts must match and the ratios stay near 1. Moved here from the test suite: it measures
// fidelity, which depends on the machine, and the k = 1 run alone takes about 95 s of wall time.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));
const SCALES = (process.env.BENCH_SCALES ?? '1,20').split(',').map(Number);
// Each phase long enough for ≥ 72 samples (the least that can bound a p95) after its warm-up.
const SUITE = `name: timescale
description: the documented profiles, shortened
phases:
  - { name: sustained, duration: 50s, rpm: 100, warmup: 5s }
  - { name: burst, duration: 25s, rpm: 200, warmup: 2s }
  - { name: spike, duration: 16s, rpm: 300, warmup: 1s }
`;

function runAt(k) {
  const dir = mkdtempSync(join(tmpdir(), `loadproof-k${k}-`));
  writeFileSync(join(dir, 'suite.yaml'), SUITE);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', join(dir, 'suite.yaml'), '--time-scale', String(k), '--out', join(dir, 'out')], { stdio: 'ignore' });
    child.on('exit', (code) => {
      const runDir = join(dir, 'out', readdirSync(join(dir, 'out'))[0]);
      resolve({ k, code, summary: JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) });
    });
  });
}

const runs = [];
for (const k of SCALES) runs.push(await runAt(k));
const base = runs[0];
console.log(`time-scale fidelity (model ms; ratio = p95 at k ÷ p95 at k = ${base.k})`);
console.log(['phase', ...runs.map((r) => `k=${r.k} p95`), ...runs.slice(1).map((r) => `ratio k=${r.k}`), ...runs.map((r) => `verdict k=${r.k}`)].join('\t'));
for (const [i, phase] of base.summary.phases.entries()) {
  const p95 = (r) => r.summary.phases[i].steadyLatencyMs.p95;
  console.log([phase.name, ...runs.map((r) => p95(r)), ...runs.slice(1).map((r) => (p95(r) / p95(base)).toFixed(3)), ...runs.map((r) => r.summary.phases[i].verdict)].join('\t'));
}
console.log(`exit codes: ${runs.map((r) => `k=${r.k}: ${r.code}`).join(', ')}`);
