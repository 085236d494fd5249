// npm run bench — every performance and fidelity figure of loadproof in one sitting: each bench
// script below runs in turn (each compares against its peer — autocannon, a bare node:http server,
// or the computed truth — in the same sitting, with repetitions and medians), writes its rows as
// JSON (BENCH_JSON), and this prints them all as one table and appends it, with the date, the machine
// and the versions, to bench/RESULTS.md. Exit 0 when every target was met, 1 otherwise, 2 when a
// bench could not run. BENCH_ONLY=engine,memory runs a subset; BENCH_ONLY=suite (not run by default) times
// the test suite.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BENCHES = [
  {
    name: 'engine',
    script: 'bench/engine-cpu.js',
    what: 'the generator against autocannon: CPU per request, highest rate within the lag budget, idle CPU',
  },
  {
    name: 'memory',
    script: 'bench/memory.js',
    what: 'RSS: at fixed rates against autocannon, 10 s against 60 s, before the first request, a 24 h soak against 1 h, the mock across runs',
  },
  {
    name: 'fixed',
    script: 'bench/fixed-cost.js',
    what: "a run's fixed CPU (10 requests over 1 s, reports written) and RSS before the first request, against a bare paced client",
  },
  { name: 'mock', script: 'bench/mock-throughput.js', what: 'the mock against a bare node:http server' },
  { name: 'time-scale', script: 'bench/time-scale.js', what: 'time-scaled latency against k = 1' },
  {
    name: 'co',
    script: 'bench/coordinated-omission.js',
    what: 'coordinated omission on the stall profile: loadproof and autocannon against the truth',
  },
  {
    name: 'suite',
    script: 'bench/suite-time.js',
    what: 'the test suite, idle and beside a CPU hog (ten minutes and more: only with BENCH_ONLY)',
    onlyWhenAsked: true,
  },
];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const selected =
  only === undefined ? BENCHES.filter((b) => b.onlyWhenAsked !== true) : BENCHES.filter((b) => only.includes(b.name));
if (selected.length === 0) {
  console.error(
    `BENCH_ONLY: expected some of ${BENCHES.map((b) => b.name).join(', ')}, got "${process.env.BENCH_ONLY}"`,
  );
  process.exit(2);
}

const version = (pkg) => JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')).version;
const work = mkdtempSync(join(tmpdir(), 'loadproof-bench-all-'));
const results = [];
let broken = 0;
for (const bench of selected) {
  const jsonFile = join(work, `${bench.name}.json`);
  console.log(`\n## ${bench.name}: ${bench.what}\n`);
  const started = Date.now();
  const child = spawnSync(process.execPath, [join(root, bench.script)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, BENCH_JSON: jsonFile },
  });
  const seconds = (Date.now() - started) / 1000;
  let rows;
  try {
    rows = JSON.parse(readFileSync(jsonFile, 'utf8')).rows;
  } catch {
    rows = undefined;
  }
  if (child.status !== 0 && rows === undefined) {
    broken++;
    results.push({
      bench: bench.name,
      seconds,
      rows: [
        {
          figure: `${bench.script} did not run (exit ${child.status ?? child.signal})`,
          loadproof: null,
          peer: null,
          ratio: null,
          target: '',
          met: false,
        },
      ],
    });
  } else {
    results.push({ bench: bench.name, seconds, rows: rows ?? [] });
  }
}
rmSync(work, { recursive: true, force: true });

const cell = (v) =>
  v === null || v === undefined
    ? '—'
    : typeof v === 'number'
      ? Math.abs(v) >= 100
        ? Math.round(v).toLocaleString('en-US')
        : Number(v.toPrecision(3)).toString()
      : String(v);
const lines = [
  '| bench | figure | loadproof | peer | ratio | target | met |',
  '|---|---|---|---|---|---|---|',
  ...results.flatMap((r) =>
    r.rows.map(
      (row) =>
        `| ${r.bench} | ${row.figure} | ${cell(row.loadproof)} | ${cell(row.peer)} | ${row.ratio === null || row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}×`} | ${row.target} | ${row.met === null || row.met === undefined ? 'n/a' : row.met ? 'yes' : '**no**'} |`,
    ),
  ),
];
const missed = results.flatMap((r) => r.rows).filter((row) => row.met === false).length;
const cpu = cpus();
const machine = `${osType()} ${release()}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
const versions = `Node ${process.version}, loadproof ${version('.')}, autocannon ${version('node_modules/autocannon')}, undici ${version('node_modules/undici')}`;
const header = `## ${new Date().toISOString()}\n\n${machine}; ${versions}; ${results.map((r) => `${r.bench} ${r.seconds.toFixed(0)} s`).join(', ')}\n`;
const block = `${header}\n${lines.join('\n')}\n\n${missed === 0 ? 'Every target met.' : `${missed} target(s) not met.`}\n\n`;
console.log(`\n${block}`);
appendFileSync(join(root, 'bench', 'RESULTS.md'), block);
console.log('appended to bench/RESULTS.md');
process.exit(broken > 0 ? 2 : missed > 0 ? 1 : 0);
