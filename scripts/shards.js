// npm run shards — a sharded run on this machine, started as deploy/kubernetes/shards-job.yaml starts it on a
// cluster: one `loadproof mock` on 127.0.0.1 (the service they share), n processes each with JOB_COMPLETION_INDEX
// in its environment running `loadproof run <scenario> --shard $(JOB_COMPLETION_INDEX)/n --start-at <one time>`,
// then `loadproof merge` over their folders, which prints the whole plan's verdict and exits with it.
// Usage: npm run shards -- [scenario (default scenarios/ci-regression.yaml)] [--shards n (3)] [--time-scale k (20)]
// [--out dir (reports/shards/<UTC time>)] The scenario's target is replaced by the local mock (a copy is written beside
// the shards): nothing leaves loopback.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parse, stringify } from 'yaml';

const BIN = fileURLToPath(new URL('../bin/loadproof.js', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const shards = Number(flag('--shards', '3'));
const k = Number(flag('--time-scale', '20'));
const out = resolve(
  flag(
    '--out',
    join(
      'reports',
      'shards',
      new Date()
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z'),
    ),
  ),
);
const scenarioFile = args[0] ?? fileURLToPath(new URL('../scenarios/ci-regression.yaml', import.meta.url));
if (!(Number.isInteger(shards) && shards >= 1 && shards <= 16))
  throw new Error(`--shards: expected 1 to 16, got ${shards}`);

/** Runs loadproof with `argv`, its output passed through with a prefix; resolves with its exit code. */
function loadproof(argv, env = {}, prefix = '') {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (d) => process.stdout.write(String(d).replace(/^(?=.)/gm, prefix)));
  return new Promise((done) => child.on('exit', (code) => done(code ?? 1)));
}

const mock = spawn(process.execPath, [BIN, 'mock', '--json', '--time-scale', String(k)], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const { url } = JSON.parse(await new Promise((done) => mock.stdout.once('data', done)));
  mkdirSync(out, { recursive: true });
  const scenario = parse(readFileSync(scenarioFile, 'utf8'));
  scenario.target = { ...scenario.target, environment: 'mock', baseUrl: url };
  delete scenario.target.profile;
  const copy = join(out, 'scenario-local.yaml');
  writeFileSync(copy, stringify(scenario));
  // Time for n processes to start and warm up: a shard not ready by its start (1 s of model time after it) sends
  // nothing.
  const startAt = new Date(Date.now() + 5000 + 1000 * shards).toISOString();
  console.log(`shards: ${shards} shards of ${scenarioFile} against ${url} at time scale ${k}, starting at ${startAt}`);
  const codes = await Promise.all(
    Array.from({ length: shards }, (_, i) =>
      loadproof(
        [
          'run',
          copy,
          '--shard',
          `${i}/${shards}`,
          '--start-at',
          startAt,
          '--time-scale',
          String(k),
          '--run-dir',
          join(out, `shard-${i}`),
          '--no-charts',
          '--quiet',
        ],
        { JOB_COMPLETION_INDEX: String(i) },
        `[shard ${i}] `,
      ),
    ),
  );
  if (codes.some((c) => c !== 0)) {
    console.log(`shards: a shard failed (exit codes ${codes.join(', ')}): nothing merged`);
    process.exitCode = 4;
  } else {
    process.exitCode = await loadproof(['merge', ...codes.map((_, i) => join(out, `shard-${i}`)), '--out', out]);
  }
} finally {
  mock.kill('SIGINT');
}
