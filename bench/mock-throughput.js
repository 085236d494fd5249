// npm run bench:mock — how fast the mock answers identification requests (profile `zero`), as a
// ratio to a bare node:http server doing the same parsing, in the same run: BENCH_REPS (default 3)
// alternating repetitions of each, medians; target ratio ≥ 0.5 (issue 11 §7). A second peer, the same bare
// server running the mock's PHI detector (bench/lib/detector-server.js), splits the mock's CPU per request into
// the detector's and the service model's (auth, limiter, fleet, Server-Timing, stats). Each server is pinned to
// core 1 and autocannon to core 0 when taskset exists. Loopback only; bounded in time (BENCH_SECONDS,
// default 5 per measurement, after a 1 s warm-up of each server). Also prints the mock's RSS after each
// repetition (it serves every repetition: one long-running mock). BENCH_JSON: see bench/README.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { request } from 'undici';

import { createRng } from '../dist/core/rng.js';
import { API_PATHS } from '../dist/spec/index.js';
import { generateNote } from '../dist/texts/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const TARGET_RATIO = 0.5;
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const PINNED = existsSync('/usr/bin/taskset') || existsSync('/bin/taskset');

/** Starts a server process (on core 1 when pinned) that prints one JSON line with its url. */
function startServer(args) {
  const child = PINNED
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, info: JSON.parse(out.split('\n')[0]) });
    });
    child.on('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
}

async function json(url, init = {}) {
  const res = await request(url, init);
  return res.body.json();
}

const note = generateNote(createRng(1));
const body = JSON.stringify({ text: note });

/**
 * autocannon in a child process pinned to core 0 (so it does not share a core with the server);
 * resolves with its JSON result.
 */
function load(url, headers, seconds) {
  const args = [
    here('../node_modules/autocannon/autocannon.js'),
    '-j',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(seconds),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-b',
    body,
  ];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const child = PINNED
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited ${code}`)),
    );
  });
}

/** CPU time (user + system) a process has used, in µs (from /proc; Linux clock ticks of 10 ms). */
function cpuUs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** Runs `load` against a server and measures the server's CPU per request answered (µs). */
async function measured(server, url, headers, seconds) {
  const before = cpuUs(server.child.pid);
  const result = await load(url, headers, seconds);
  const used = cpuUs(server.child.pid) - before;
  return { result, cpuPerRequestUs: used / Math.max(1, result.requests.total) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const baseline = await startServer([here('./baseline-server.js')]);
const detecting = await startServer([here('./lib/detector-server.js')]);
const mock = await startServer([here('../bin/loadproof.js'), 'mock', '--profile', 'zero', '--port', '0', '--json']);
try {
  const { info } = mock;
  const token = await json(info.url + API_PATHS.token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: info.clientId,
      client_secret: info.clientSecret,
      audience: info.audience,
      grant_type: 'client_credentials',
    }),
  });
  const auth = { authorization: `Bearer ${token.access_token}` };
  const mockUrl = info.url + API_PATHS.identification;
  const rss = async () => (await json(`${info.url}/__mock/stats`)).memory.rssBytes / 2 ** 20;

  console.log(
    `loadproof mock throughput: ${REPS} × ${SECONDS} s per server, ${CONNECTIONS} connections, ${note.length}-character note; ${PINNED ? 'pinned: servers on core 1, autocannon on core 0 (taskset)' : 'not pinned (no taskset)'}`,
  );
  // Other processes on the same cores move every figure but the ratios of one repetition less.
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
  console.log(`load average before: ${load()}`);
  // Warm both (JIT, buffers) before measuring.
  await load(baseline.info.url, {}, 1);
  await load(detecting.info.url, {}, 1);
  await load(mockUrl, auth, 1);
  const base = [];
  const served = [];
  const rssAfter = [];
  const cpu = { base: [], detecting: [], mock: [] };
  for (let rep = 0; rep < REPS; rep++) {
    const bm = await measured(baseline, baseline.info.url, {}, SECONDS);
    const dm = await measured(detecting, detecting.info.url, {}, SECONDS);
    const mm = await measured(mock, mockUrl, auth, SECONDS);
    const [b, m] = [bm.result, mm.result];
    cpu.base.push(bm.cpuPerRequestUs);
    cpu.detecting.push(dm.cpuPerRequestUs);
    cpu.mock.push(mm.cpuPerRequestUs);
    if (m.non2xx > 0 || m.errors > 0)
      throw new Error(`the mock answered ${m.non2xx} non-2xx and ${m.errors} errors: not a throughput figure`);
    base.push(b.requests.average);
    served.push(m.requests.average);
    rssAfter.push(await rss());
    console.log(
      `  rep ${rep + 1}: bare node:http ${b.requests.average.toFixed(0)} req/s (p99 ${b.latency.p99} ms), mock ${m.requests.average.toFixed(0)} req/s (p99 ${m.latency.p99} ms), ratio ${(m.requests.average / b.requests.average).toFixed(2)}×; server CPU per request ${bm.cpuPerRequestUs.toFixed(0)} / ${mm.cpuPerRequestUs.toFixed(0)} µs (bare + detector ${dm.cpuPerRequestUs.toFixed(0)} µs); mock RSS ${rssAfter.at(-1).toFixed(1)} MiB`,
    );
  }
  console.log(`load average after: ${load()}`);
  const ratios = served.map((m, i) => m / base[i]);
  const ratio = median(ratios);
  console.log(
    `median server CPU per request: bare node:http ${median(cpu.base).toFixed(0)} µs, mock ${median(cpu.mock).toFixed(0)} µs (ratio ${(median(cpu.base) / median(cpu.mock)).toFixed(2)}×: the throughput ratio when the server, not the load generator, is the limit)`,
  );
  const [cpuBase, cpuDetecting, cpuMock] = [median(cpu.base), median(cpu.detecting), median(cpu.mock)];
  console.log(
    `  of which the PHI detector (bare + detector − bare) ${(cpuDetecting - cpuBase).toFixed(0)} µs, the service model (mock − bare + detector) ${(cpuMock - cpuDetecting).toFixed(0)} µs; mock CPU ratio to bare + detector ${(cpuDetecting / cpuMock).toFixed(2)}×`,
  );
  console.log(
    `median: bare node:http ${median(base).toFixed(0)} req/s, mock ${median(served).toFixed(0)} req/s; ratio ${ratio.toFixed(2)}× (target ≥ ${TARGET_RATIO}×): ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}`,
  );
  if (process.env.BENCH_JSON) {
    writeFileSync(
      process.env.BENCH_JSON,
      JSON.stringify({
        bench: 'mock',
        rows: [
          {
            figure: 'server CPU per request, bare node:http / mock (µs)',
            loadproof: Math.round(median(cpu.mock)),
            peer: Math.round(median(cpu.base)),
            ratio: Math.round((median(cpu.base) / median(cpu.mock)) * 100) / 100,
            target: 'for reference: the ceiling of the throughput ratio',
            met: null,
          },
          {
            figure: 'mock identification req/s (profile zero) vs bare node:http',
            loadproof: Math.round(median(served)),
            peer: Math.round(median(base)),
            ratio: Math.round(ratio * 100) / 100,
            target: 'at least 0.5 × a bare node:http server',
            met: ratio >= TARGET_RATIO,
          },
          {
            figure: 'server CPU per request, bare node:http running the mock’s detector / mock (µs)',
            loadproof: Math.round(cpuMock),
            peer: Math.round(cpuDetecting),
            ratio: Math.round((cpuDetecting / cpuMock) * 100) / 100,
            target: 'for reference: the cost of the service model alone',
            met: null,
          },
        ],
      }),
    );
  }
} finally {
  mock.child.kill('SIGTERM');
  baseline.child.kill('SIGTERM');
  detecting.child.kill('SIGTERM');
}
