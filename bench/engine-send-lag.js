// npm run bench:engine — how accurately the open-model engine keeps its schedule: send lag
// (fired − planned, wall ms) at 300 rpm and at 100 requests/s, through the real CLI against the
// `zero` mock, as a ratio to a bare timer loop's lateness measured in the same run (the floor on this
// machine). Target: p99 under 2 ms. Loopback only; BENCH_SECONDS (default 20) per case.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { MsHistogram } from '../dist/recorder/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const BIN = fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));

function startMock() {
  const child = spawn(process.execPath, [BIN, 'mock', '--profile', 'zero', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, url: JSON.parse(out.split('\n')[0]).url });
    });
    child.on('exit', (code) => reject(new Error(`mock exited (${code})`)));
  });
}

function runCase(url, rpm) {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-bench-'));
  const file = join(dir, 'bench.yaml');
  writeFileSync(
    file,
    `name: bench-${rpm}\ndescription: send-lag benchmark\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n  - { name: steady, duration: ${SECONDS}s, rpm: ${rpm} }\nthresholds: { documentedTargets: false }\n`,
  );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', file, '--out', join(dir, 'out')], { stdio: 'ignore' });
    child.on('exit', () => {
      const runDir = join(dir, 'out', readdirSync(join(dir, 'out'))[0]);
      resolve(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')));
    });
  });
}

/** The floor: a bare loop of timers at the same spacing, measuring how late each fires (ms). */
function timerFloor(spacingMs, count) {
  const h = MsHistogram.create();
  const start = performance.now();
  return new Promise((resolve) => {
    let i = 0;
    const next = () => {
      if (i >= count) return resolve(h.summary());
      const due = start + i * spacingMs;
      setTimeout(
        () => {
          h.recordMs(performance.now() - due);
          i++;
          next();
        },
        Math.max(0, due - performance.now()),
      );
    };
    next();
  });
}

const fmt = (v) => (v === null || Number.isNaN(v) ? '—' : v.toFixed(2));
const { child, url } = await startMock();
try {
  console.log(`loadproof engine send lag: ${SECONDS} s per case, against the zero mock on loopback (wall ms)`);
  console.log('case                      requests   p50     p99     max    floor p99   p99 / floor');
  for (const [label, rpm] of [
    ['300 rpm', 300],
    ['100 requests/s', 6000],
  ]) {
    const summary = await runCase(url, rpm);
    const lag = summary.phases[0].sendLagMs;
    const floor = await timerFloor(60_000 / rpm, Math.min(summary.phases[0].planned, 2000));
    const ratio = lag.p99 / Math.max(floor.p99, 0.001);
    console.log(
      `${label.padEnd(24)}  ${String(summary.phases[0].sent).padStart(8)}  ${fmt(lag.p50).padStart(6)}  ${fmt(lag.p99).padStart(6)}  ${fmt(lag.max).padStart(6)}   ${fmt(floor.p99).padStart(8)}   ${ratio.toFixed(2)}×  ${lag.p99 < 2 ? 'OK (< 2 ms)' : 'OVER 2 ms'}`,
    );
  }
} finally {
  child.kill('SIGTERM');
}
