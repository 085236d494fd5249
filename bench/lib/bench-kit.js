// Shared by the fidelity benches (time-scale, coordinated-omission): running the CLI, medians, the
// BENCH_JSON output of the bench convention, and the table printed for a human.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/loadproof.js', import.meta.url));
export const TASKSET = existsSync('/usr/bin/taskset') ? '/usr/bin/taskset' : undefined;

export const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const tempDir = (name) => mkdtempSync(join(tmpdir(), `loadproof-bench-${name}-`));

/**
 * Spawns `node args…` (pinned to `cpu` when taskset exists), bounded by `limitMs`; resolves {code, stdout, stderr,
 * wallMs}.
 */
export function runNode(args, { cpu, limitMs = 30 * 60_000 } = {}) {
  const started = performance.now();
  const [cmd, argv] =
    TASKSET !== undefined && cpu !== undefined
      ? [TASKSET, ['-c', String(cpu), process.execPath, ...args]]
      : [process.execPath, args];
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** `loadproof run` of `scenarioFile` into `runDir`; resolves with its summary and wall time. */
export async function loadproofRun(scenarioFile, runDir, extra = [], options = {}) {
  const r = await runNode([BIN, 'run', scenarioFile, '--run-dir', runDir, ...extra], options);
  const summaryFile = join(runDir, 'summary.json');
  if (!existsSync(summaryFile))
    throw new Error(
      `loadproof run ${scenarioFile} ${extra.join(' ')}: no summary (exit ${r.code}): ${r.stderr.slice(-500)}`,
    );
  return { code: r.code, wallMs: r.wallMs, summary: JSON.parse(readFileSync(summaryFile, 'utf8')), runDir };
}

/** Prints the rows as a table and writes them to $BENCH_JSON when it is set. */
export function report(bench, rows, notes = []) {
  const fmt = (v) =>
    v === null || v === undefined ? '–' : typeof v === 'number' ? String(Number(v.toPrecision(5))) : String(v);
  const table = [
    ['figure', 'loadproof', 'peer', 'ratio', 'target', 'met'],
    ...rows.map((r) => [
      r.figure,
      fmt(r.loadproof),
      fmt(r.peer),
      fmt(r.ratio),
      r.target,
      r.met === null ? '–' : r.met ? 'yes' : 'NO',
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  for (const row of table) console.log(row.map((c, i) => c.padEnd(widths[i])).join('  '));
  for (const n of notes) console.log(n);
  if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ bench, rows }));
}
