// npm run bench:mock — how fast the mock answers identification requests (profile `zero`), as a
// ratio to a bare node:http server doing the same parsing in the same run, and whether its memory
// stays flat. Loopback only; bounded in time (BENCH_SECONDS, default 10 per target).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { createRng } from '../dist/core/rng.js';
import { generateNote } from '../dist/corpus/index.js';
import { API_PATHS } from '../dist/spec/index.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const TARGET_RPS = 5000;
const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Starts a server process that prints one JSON line with its url. */
function startServer(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
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

function load(url, headers, body) {
  return autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, connections: CONNECTIONS, duration: SECONDS });
}

const note = generateNote(createRng(1));
const body = JSON.stringify({ text: note });

const baseline = await startServer([here('./baseline-server.js')]);
const mock = await startServer([here('../bin/loadproof.js'), 'mock', '--profile', 'zero', '--port', '0', '--json']);
try {
  const { info } = mock;
  const token = await json(info.url + API_PATHS.token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: info.clientId, client_secret: info.clientSecret, audience: info.audience, grant_type: 'client_credentials' }),
  });
  const auth = { authorization: `Bearer ${token.access_token}` };
  const rss = async () => (await json(`${info.url}/__mock/stats`)).memory.rssBytes / 2 ** 20;

  console.log(`loadproof mock throughput: ${SECONDS} s per target, ${CONNECTIONS} connections, ${note.length}-character note`);
  const base = await load(baseline.info.url, {}, body);
  // Warm the mock (JIT, buffers) before measuring its memory baseline.
  await autocannon({ url: info.url + API_PATHS.identification, method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body, connections: CONNECTIONS, duration: 2 });
  const rssBefore = await rss();
  const run = await load(info.url + API_PATHS.identification, auth, body);
  const rssAfter = await rss();
  const secondRun = await load(info.url + API_PATHS.identification, auth, body);
  const rssEnd = await rss();

  const row = (name, r) =>
    `${name.padEnd(22)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
  console.log(row('bare node:http (peer)', base));
  console.log(row('mock, run 1', run));
  console.log(row('mock, run 2', secondRun));
  const ratio = run.requests.average / base.requests.average;
  console.log(`ratio mock / bare node:http: ${ratio.toFixed(2)}×`);
  console.log(`mock RSS: ${rssBefore.toFixed(1)} MiB after warm-up → ${rssAfter.toFixed(1)} MiB after run 1 → ${rssEnd.toFixed(1)} MiB after run 2`);
  const rps = Math.min(run.requests.average, secondRun.requests.average);
  console.log(rps >= TARGET_RPS ? `OK: the mock answers ≥ ${TARGET_RPS} identification requests/s here` : `BELOW TARGET: ${rps.toFixed(0)} < ${TARGET_RPS} requests/s on this machine`);
} finally {
  mock.child.kill('SIGTERM');
  baseline.child.kill('SIGTERM');
}
