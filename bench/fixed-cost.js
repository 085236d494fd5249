// npm run bench:fixed — what a run costs before and around its load: `loadproof run` of 10 requests over 1 s
// against a bare node:http server (bench/baseline-server.js, target { environment: mock, baseUrl }), reports
// written with charts and with --no-charts, against a bare Node process that sends the same 10 requests
// (bench/lib/paced-client.js), all in the same sitting, interleaved, BENCH_REPS (5) times, medians.
//  - CPU: the child's whole user + sys time (every thread) from getrusage, as /usr/bin/time -f reports it at exit.
//  - RSS before the first request: the child's peak RSS (VmHWM) read from /proc when it announces its load (the
//    line "…: N requests over …", printed after the warm-up, just before t = 0): the most it held before sending.
//    The paced client's is read when it says "load started".
//  - Where the CPU goes: one charted run under `node --cpu-prof`, each sample put in the innermost of module
//    loading, token, warm-up, load, judge, each report file, charts (PNG), GC; shares of the profile (a profiler
//    slows everything alike).
// Targets (issue 32): ≤ 0.6 s of CPU with reports, ≤ 80 MiB before the first request.
// Knobs: BENCH_REPS (5), LOADPROOF_BIN (another build's bin/loadproof.js), BENCH_COMPARE_BIN (a second build run
// interleaved with the first, printed beside it: before/after), BENCH_PROFILE=0 (no breakdown), BENCH_JSON.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPS = Number(process.env.BENCH_REPS ?? 5);
const BIN = process.env.LOADPROOF_BIN ?? fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));
const COMPARE_BIN = process.env.BENCH_COMPARE_BIN;
const SERVER = fileURLToPath(new URL('./baseline-server.js', import.meta.url));
const PACED = fileURLToPath(new URL('./lib/paced-client.js', import.meta.url));
const TIME = '/usr/bin/time';
const TASKSET = '/usr/bin/taskset';
const PINNED = existsSync(TASKSET);
const CPU_TARGET_S = 0.6;
const RSS_TARGET_MIB = 80;
const NOTE =
  'Patient John Smith, DOB 04/12/1961, seen at Mercy General on 03/02/2024 for follow-up of hypertension. '.repeat(6);

if (!existsSync(TIME)) {
  console.error(`${TIME} is missing: it reads each child's CPU (getrusage) at exit`);
  process.exit(2);
}
const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** Spawns `args` on `core` (when taskset exists; it execs the command in place). */
const spawnOn = (core, args, options) =>
  PINNED ? spawn(TASKSET, ['-c', String(core), ...args], options) : spawn(args[0], args.slice(1), options);

/** VmHWM (MiB) of `pid`, or null once it is gone. */
function peakRssMiB(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

/** The process /usr/bin/time started (its only child). */
function childOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]) || null;
  } catch {
    return null;
  }
}

/**
 * Runs `args` (node and its arguments) under /usr/bin/time on core 0: its CPU seconds (user + sys), and its peak
 * RSS when a line of its stderr first matches `started`.
 */
function measured(args, started, work) {
  const timeFile = join(work, `time-${process.hrtime.bigint()}.txt`);
  return new Promise((resolve, reject) => {
    const child = spawnOn(0, [TIME, '-f', '%U %S', '-o', timeFile, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let rssMiB = null;
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (rssMiB === null && started.test(stderr)) {
        // time → (taskset execs in place) → node
        const node = childOf(child.pid);
        rssMiB = node === null ? null : peakRssMiB(node);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const [user, sys] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`));
      resolve({ cpuS: user + sys, rssMiB });
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'loadproof-bench-fixed-'));
const server = spawnOn(1, [process.execPath, SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(JSON.parse(String(d)).url)));
const scenario = join(work, 'fixed.yaml');
writeFileSync(
  scenario,
  `name: fixed\ndescription: ten requests over one second against a bare server\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n  - { name: a, duration: 1s, rpm: 600 }\nthresholds: { documentedTargets: false }\n`,
);
const ANNOUNCED = /requests over [\d.]+ s of model time/;
const run = (bin, extra) =>
  measured(
    [process.execPath, bin, 'run', scenario, '--out', join(work, 'reports'), '--quiet', ...extra],
    ANNOUNCED,
    work,
  );
const peer = () =>
  measured([process.execPath, PACED, url, '10', '1', JSON.stringify({ text: NOTE })], /load started/, work);

const builds =
  COMPARE_BIN === undefined
    ? [['loadproof', BIN]]
    : [
        ['loadproof', BIN],
        ['compared build', COMPARE_BIN],
      ];
const samples = {};
const add = (key, value) => (samples[key] ??= []).push(value);
const med = (key, field) => median(samples[key].map((s) => s[field]));

/** Every build with and without charts, then the peer, REPS times over; one of each first, not counted (caches). */
async function measure() {
  await run(BIN, []);
  await peer();
  for (let rep = 0; rep < REPS; rep++) {
    for (const [name, bin] of builds) {
      add(`${name}, charts`, await run(bin, []));
      add(`${name}, --no-charts`, await run(bin, ['--no-charts']));
    }
    add('peer (paced client)', await peer());
    process.stdout.write(`repetition ${rep + 1}/${REPS} done\n`);
  }
  for (const key of Object.keys(samples))
    console.log(
      `${key.padEnd(28)} CPU ${med(key, 'cpuS').toFixed(2)} s (${samples[key].map((s) => s.cpuS.toFixed(2)).join(', ')}); RSS before the first request ${med(key, 'rssMiB')?.toFixed(1)} MiB`,
    );
}

/** The bench rows (bench/all.js's convention). */
function rows() {
  const peerCpu = med('peer (paced client)', 'cpuS');
  const peerRss = med('peer (paced client)', 'rssMiB');
  const row = (figure, loadproof, peerValue, target, met) => ({
    figure,
    loadproof,
    peer: peerValue,
    ratio: loadproof !== null && peerValue ? loadproof / peerValue : null,
    target,
    met,
  });
  const charts = med('loadproof, charts', 'cpuS');
  const rss = med('loadproof, charts', 'rssMiB');
  return [
    row(
      'fixed CPU of a run: 10 requests over 1 s, reports and charts written (s; peer: a bare paced client)',
      charts,
      peerCpu,
      `≤ ${CPU_TARGET_S} s`,
      charts <= CPU_TARGET_S,
    ),
    row('fixed CPU of a run, --no-charts (s)', med('loadproof, --no-charts', 'cpuS'), peerCpu, '', null),
    row(
      'RSS before the first request (MiB, peak until the load starts)',
      rss,
      peerRss,
      `≤ ${RSS_TARGET_MIB} MiB`,
      rss !== null && rss <= RSS_TARGET_MIB,
    ),
  ];
}

/** One charted run under the profiler: where its CPU goes. */
async function profileOne() {
  const { breakdown } = await import('./lib/cpu-breakdown.js');
  const dir = join(work, 'prof');
  await measured(
    [process.execPath, '--cpu-prof', `--cpu-prof-dir=${dir}`, BIN, 'run', scenario, '--out', join(work, 'reports')],
    ANNOUNCED,
    work,
  );
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  console.log('\nWhere the CPU of one charted run goes (node --cpu-prof; shares of its busy samples):');
  for (const [part, ms, share] of breakdown(JSON.parse(readFileSync(join(dir, file), 'utf8'))))
    console.log(`  ${part.padEnd(46)} ${ms.toFixed(0).padStart(6)} ms ${(share * 100).toFixed(1).padStart(6)} %`);
}

let result;
try {
  await measure();
  result = rows();
  console.log('');
  for (const r of result)
    console.log(
      `${r.figure}: ${r.loadproof?.toFixed(2)} against ${r.peer?.toFixed(2)} (${r.ratio?.toFixed(2)}×)${r.target === '' ? '' : `, target ${r.target}: ${r.met ? 'met' : 'NOT met'}`}`,
    );
  if (process.env.BENCH_PROFILE !== '0') await profileOne();
} finally {
  server.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
if (process.env.BENCH_JSON)
  writeFileSync(process.env.BENCH_JSON, JSON.stringify({ bench: 'fixed', pinned: PINNED, rows: result }));
