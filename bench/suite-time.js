// npm run bench:suite — how long the test suite (`vitest run`, what `npm test` runs after its build) takes on this
// checkout, idle and beside CPU hogs, as a user or CI feels it: BENCH_SUITE_REPS (default 1) runs for each count of
// hogs in BENCH_SUITE_HOGS (default 0,1; a hog is `node -e 'for(;;){}'`, killed when its runs end, whatever
// happens). Each run prints its wall time (vitest's own Duration line too), the CPU it used (user + sys of vitest
// and every process it started, from /proc/self/stat's children's times), its load average, and whether it passed;
// the rows are the medians, against the targets (at most 60 s idle, 90 s beside one hog). The suite is bound by CPU
// on 2 cores, so its CPU is the figure a change moves and the wall time follows. Not in `npm run bench` by default
// (a sitting of it takes ten minutes and more): BENCH_ONLY=suite adds it. BENCH_SUITE_ARGS: files or options given to
// vitest, to time a part (no target then).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { median, report } from './lib/bench-kit.js';

const REPS = Number(process.env.BENCH_SUITE_REPS ?? 1);
const HOGS = (process.env.BENCH_SUITE_HOGS ?? '0,1').split(',').map(Number);
// Test files or vitest options to time a part of the suite (e.g. `test/cli`): the targets are for the whole.
const ARGS = (process.env.BENCH_SUITE_ARGS ?? '').split(' ').filter((a) => a !== '');
const LIMIT_MS = Number(process.env.BENCH_SUITE_LIMIT_S ?? 1800) * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const TARGET_S = { 0: 60, 1: 90 };

/** CPU seconds of this process's waited-for children so far (cutime + cstime, in clock ticks of 10 ms). */
function childrenCpuS() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // Fields after the command: state is 0, so cutime (field 16) is at 13 and cstime (17) at 14.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

// Each run's whole output, to read a failure afterwards.
const logs = mkdtempSync(join(tmpdir(), 'loadproof-bench-suite-'));
let runNo = 0;

const hogs = new Set();
const killHogs = () => {
  for (const h of hogs) h.kill('SIGKILL');
  hogs.clear();
};
process.on('exit', killHogs);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    killHogs();
    process.exit(130);
  });

/** One `vitest run`, bounded by LIMIT_MS: its wall and CPU seconds, exit code and vitest's summary lines. */
function suiteRun() {
  const cpuBefore = childrenCpuS();
  const started = performance.now();
  const child = spawn(process.execPath, [VITEST, 'run', ...ARGS], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(guard);
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      const logFile = join(logs, `run-${++runNo}.log`);
      writeFileSync(logFile, plain);
      const line = (name) => plain.match(new RegExp(`^\\s*${name}\\s+(.*)$`, 'm'))?.[1].trim() ?? '?';
      resolve({
        code,
        wallS: (performance.now() - started) / 1000,
        cpuS: childrenCpuS() - cpuBefore,
        tests: line('Tests'),
        duration: line('Duration'),
        failed: [...plain.matchAll(/^\s*(?:FAIL|×)\s+(.*)$/gm)].map((m) => m[1]).slice(0, 5),
        logFile,
      });
    });
  });
}

const rows = [];
for (const hogCount of HOGS) {
  const runs = [];
  for (let i = 0; i < hogCount; i++) hogs.add(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const r = await suiteRun();
      const load = loadavg()[0].toFixed(1);
      console.log(
        `  beside ${hogCount} hog(s), run ${rep + 1}/${REPS}: ${r.wallS.toFixed(0)} s wall, ${r.cpuS.toFixed(0)} s CPU, load ${load}, exit ${r.code}; tests ${r.tests}; vitest: ${r.duration}${r.failed.length === 0 ? '' : `; failed: ${r.failed.join(' | ')} (whole output: ${r.logFile})`}`,
      );
      runs.push(r);
    }
  } finally {
    killHogs();
  }
  const target = TARGET_S[hogCount];
  const wallS = median(runs.map((r) => r.wallS));
  const passed = runs.filter((r) => r.code === 0).length;
  rows.push({
    figure: `the test suite beside ${hogCount} CPU hog(s): wall s, median of ${REPS} (${passed} of ${REPS} passed; CPU ${median(runs.map((r) => r.cpuS)).toFixed(0)} s)`,
    loadproof: wallS,
    peer: null,
    ratio: null,
    target: target === undefined || ARGS.length > 0 ? 'none asked' : `at most ${target} s`,
    met: target === undefined || ARGS.length > 0 ? null : wallS <= target && passed === REPS,
  });
}
report('suite', rows, [
  `vitest run ${ARGS.join(' ')} on this checkout (${root}); each run's lines above; the hogs were killed after their runs`,
]);
