// npm run soak:envelope [-- N] — the rate-limit envelope against a correct service, many times: every
// shipped scenario (one aimed at a real environment is retargeted at the embedded mock through a temp
// copy) runs N times (default 10; SOAK_RUNS) at --time-scale 20 (SOAK_SCALE) against the nominal mock,
// two runs at a time (SOAK_PARALLEL), through the built CLI. It prints each run's envelope figures
// (429s, findings, edge, the most tokens the replayed bucket held at a 429, margin) and a table of
// findings per scenario; any finding exits 1. The
// documented limits allow everything the nominal mock refuses, so the findings must all be zero.
// About 3.6 minutes of wall time per round of the six scenarios at k = 20.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse, stringify } from 'yaml';

const BIN = fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));
const SCENARIOS = fileURLToPath(new URL('../scenarios/', import.meta.url));
const RUNS = Number(process.argv[2] ?? process.env.SOAK_RUNS ?? 10);
const SCALE = Number(process.env.SOAK_SCALE ?? 20);
const PARALLEL = Number(process.env.SOAK_PARALLEL ?? 2);
if (!(Number.isInteger(RUNS) && RUNS >= 1 && RUNS <= 1000))
  throw new Error(`runs: expected an integer from 1 to 1000, got ${process.argv[2] ?? process.env.SOAK_RUNS}`);

const work = mkdtempSync(join(tmpdir(), 'loadproof-soak-'));

/** The scenario as a file the embedded nominal mock can run: a real target becomes the mock, its notice dropped. */
function mockCopy(file) {
  const scenario = parse(readFileSync(join(SCENARIOS, file), 'utf8'));
  if (scenario.target?.environment !== undefined && scenario.target.environment !== 'mock') {
    scenario.target = { environment: 'mock' };
    delete scenario.notice;
    delete scenario.coordination;
  }
  const path = join(work, file);
  writeFileSync(path, stringify(scenario));
  return path;
}

const files = readdirSync(SCENARIOS)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const copies = Object.fromEntries(files.map((f) => [f, mockCopy(f)]));

function runOnce(file, round) {
  const out = join(work, `${file}-${round}`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [BIN, 'run', copies[file], '--time-scale', String(SCALE), '--mock-profile', 'nominal', '--out', out],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => {
      try {
        const summary = JSON.parse(readFileSync(join(out, readdirSync(out)[0], 'summary.json'), 'utf8'));
        const sum = (key) => summary.phases.reduce((n, p) => n + p.envelope[key], 0);
        const most = summary.phases.reduce(
          (m, p) => Math.max(m, p.envelope.maxTokensAt429 ?? Number.NEGATIVE_INFINITY),
          Number.NEGATIVE_INFINITY,
        );
        resolve({
          file,
          round,
          code,
          http429: sum('http429'),
          findings: sum('findings'),
          edge: sum('edge'),
          margin: summary.envelope.marginTokens,
          most,
          verdict: summary.verdict.status,
        });
      } catch (error) {
        resolve({
          file,
          round,
          code,
          error: `no summary (${error.message}); stderr: ${stderr.trim().split('\n').at(-1)}`,
        });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  });
}

const jobs = [];
for (let round = 1; round <= RUNS; round++) for (const file of files) jobs.push({ file, round });
const results = [];
console.log(
  `envelope soak: ${files.length} scenarios × ${RUNS} runs at --time-scale ${SCALE} against the nominal mock, ${PARALLEL} at a time`,
);
// "most tokens": the most the replayed bucket held at any 429 of the run; a finding needs 1 + margin.
console.log(
  ['scenario', 'run', 'exit', 'verdict', '429s', 'findings', 'edge', 'most tokens', 'margin (tokens)'].join('\t'),
);
async function worker() {
  for (let job = jobs.shift(); job !== undefined; job = jobs.shift()) {
    const r = await runOnce(job.file, job.round);
    results.push(r);
    console.log(
      r.error === undefined
        ? [
            r.file,
            r.round,
            r.code,
            r.verdict,
            r.http429,
            r.findings,
            r.edge,
            Number.isFinite(r.most) ? r.most.toFixed(2) : '-',
            r.margin.toFixed(2),
          ].join('\t')
        : [r.file, r.round, r.code, r.error].join('\t'),
    );
  }
}
await Promise.all(Array.from({ length: PARALLEL }, worker));
rmSync(work, { recursive: true, force: true });

console.log('\nfindings per run (429s / edge in brackets):');
for (const file of files) {
  const mine = results.filter((r) => r.file === file).sort((a, b) => a.round - b.round);
  console.log(
    `${file.padEnd(20)} ${mine.map((r) => (r.error === undefined ? `${r.findings} (${r.http429}/${r.edge})` : 'error')).join('  ')}`,
  );
}
const findings = results.reduce((n, r) => n + (r.findings ?? 0), 0);
const errors = results.filter((r) => r.error !== undefined).length;
const most = results.reduce((m, r) => Math.max(m, r.most ?? Number.NEGATIVE_INFINITY), Number.NEGATIVE_INFINITY);
const least = results.reduce((m, r) => Math.min(m, r.margin ?? Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
console.log(
  `\ntotal: ${results.length} runs, ${findings} envelope findings, ${errors} runs without a summary; at a 429 the bucket held at most ${most.toFixed(2)} tokens; the smallest margin was ${least.toFixed(2)}`,
);
process.exitCode = findings === 0 && errors === 0 ? 0 : 1;
