// npm run bench:retry-herd — the retries of a burst refused together: jittered back-off above
// Retry-After (the default baseDelay 1s) against waiting exactly Retry-After (baseDelay 1ms, jitter
// ≤ 8 ms: the old behaviour). 60 requests in 200 ms against the `tight` mock (16 in flight + 8
// queued) at time scale BENCH_K (default 4): 36 are refused at once with the same Retry-After. Per
// repetition (BENCH_REPS, default 3) it counts, from the mock's own log, the 429s per request and the
// share of the retries in the densest 100 ms of model time; medians are printed and, with BENCH_JSON,
// written as the bench convention says. Moved here from test/cli/run.test.ts: how much the jitter
// helps depends on how late this machine is (beside other load the exact herd spread out by itself,
// 1.12 429s/request instead of 1.7), so it is a figure, not a test. About 20 s per repetition.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { startMockServer } from '../dist/mock/index.js';
import { BIN, median, report, runNode, tempDir } from './lib/bench-kit.js';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const K = Number(process.env.BENCH_K ?? 4);

async function burst(baseDelay) {
  const s = await startMockServer({ port: 0, timeScale: K, profile: 'tight' });
  try {
    const dir = tempDir('herd');
    const file = join(dir, 'burst.yaml');
    writeFileSync(
      file,
      `name: herd\ndescription: a burst refused together\ntarget: { environment: mock, baseUrl: ${s.url} }\nphases:\n  - { name: burst, duration: 200ms, rpm: 18000 }\non429: { policy: retry, maxAttempts: 4, baseDelay: ${baseDelay}, maxDelay: 30s }\nthresholds: { errors: none }\n`,
    );
    const r = await runNode([BIN, 'run', file, '--time-scale', String(K), '--out', join(dir, 'out')], {
      limitMs: 120_000,
    });
    if (![0, 1, 5].includes(r.code)) throw new Error(`loadproof run exited ${r.code}: ${r.stderr.slice(-400)}`);
    const log = await (await fetch(`${s.url}/__mock/log`)).json();
    const requests = new Set(log.entries.map((e) => e.seq)).size;
    const retries = log.entries.filter((e) => e.attempt > 1);
    const perBin = new Map();
    for (const e of retries)
      perBin.set(Math.floor(e.arrivedAtMs / 100), (perBin.get(Math.floor(e.arrivedAtMs / 100)) ?? 0) + 1);
    return {
      http429PerRequest: log.entries.filter((e) => e.status === 429).length / requests,
      densest100msShare: retries.length === 0 ? null : Math.max(...perBin.values()) / retries.length,
    };
  } finally {
    await s.close();
  }
}

const exact = [];
const jittered = [];
for (let rep = 0; rep < REPS; rep++) {
  exact.push(await burst('1ms'));
  jittered.push(await burst('1s'));
  console.log(
    `rep ${rep + 1}: exact ${exact.at(-1).http429PerRequest.toFixed(2)} 429s/request, densest ${(100 * exact.at(-1).densest100msShare).toFixed(0)} %; jittered ${jittered.at(-1).http429PerRequest.toFixed(2)}, ${(100 * jittered.at(-1).densest100msShare).toFixed(0)} %`,
  );
}
const m = (xs, key) => median(xs.map((x) => x[key]));
const e429 = m(exact, 'http429PerRequest');
const j429 = m(jittered, 'http429PerRequest');
const eDense = m(exact, 'densest100msShare');
const jDense = m(jittered, 'densest100msShare');
report(
  'retry-herd',
  [
    {
      figure: '429s per request, jittered back-off vs exact Retry-After',
      loadproof: j429,
      peer: e429,
      ratio: j429 / e429,
      target: 'below 0.8 × exact (measured 1.00–1.10 vs 1.68–1.80)',
      met: j429 < 0.8 * e429,
    },
    {
      figure: 'share of retries in the densest 100 ms, jittered vs exact',
      loadproof: jDense,
      peer: eDense,
      ratio: jDense / eDense,
      target: 'at most 20 % and below exact',
      met: jDense <= 0.2 && jDense < eDense,
    },
  ],
  [
    `time scale ${K}, ${REPS} repetitions, medians; the mock in this process, loadproof as a child process (not pinned)`,
  ],
);
