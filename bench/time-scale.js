// npm run bench:time-scale — time-scale fidelity (issue 11 §3, bench item 4), through the real CLI
// against the embedded mock (in its worker thread), with the same seeds at every k so the mock's
// draws line up. The peer is the same run at k = 1.
//  1. One phase of 100 rpm for BENCH_TS_SECONDS (default 180) seconds of model time on the `nominal`
//     and `stall` profiles, at k = 1 and at each k of BENCH_SCALES (default 20,60): nominal p95 and
//     stall p50 against k = 1.
//  2. The documented suite (sustained, burst, spike: 29.5 minutes of model time) one scenario after
//     another at k = BENCH_K (default 500; BENCH_TS_SCENARIO_K is its older name): each scenario's
//     wall time, the suite's (target: at most 8 s at k = 500), and each phase's p95 and verdict against
//     k = 1 (target: the same verdict, p95 within 1 %).
// The k = 1 references run concurrently (light load: 100–300 rpm each), BENCH_TS_REF_REPS times each
// (default 3: how far one k = 1 run is from another is the yardstick for the targets); the time-scaled
// runs BENCH_REPS times (default 3), sequentially, and the medians are compared. The documented suite's
// k = 1 references are 29.5 real minutes (burst alone 11): with BENCH_TS_K1=FILE they are read from FILE
// when it exists (each run's phases: name, verdict, steady p95; written by an earlier sitting with the
// same setting, which ran them), so a sitting at k = 500 takes seconds, not 11 minutes. Same seeds, same
// mock: the k = 1 figures do not depend on the machine, only on the code of the mock and the judge, so a
// stored file is stale after a change to either (delete it). Default cost: the longest k = 1 reference
// (burst: 11 minutes) plus about 3 minutes of scaled runs. BENCH_TS_DOCUMENTED=0 skips part 2 (then about
// 4.5 minutes). No pinning: each run is one process, the mock in its thread. Wall times depend on how
// busy the machine is: on a shared machine they are indicative only.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadproofRun, median, report, tempDir } from './lib/bench-kit.js';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const REF_REPS = Number(process.env.BENCH_TS_REF_REPS ?? 3);
const SECONDS = Number(process.env.BENCH_TS_SECONDS ?? 180);
const SCALES = (process.env.BENCH_SCALES ?? '20,60')
  .split(',')
  .map(Number)
  .filter((k) => k > 1);
const SCENARIO_K = Number(process.env.BENCH_K ?? process.env.BENCH_TS_SCENARIO_K ?? 500);
const K1_FILE = process.env.BENCH_TS_K1;
const storedK1 = K1_FILE !== undefined && existsSync(K1_FILE) ? JSON.parse(readFileSync(K1_FILE, 'utf8')) : undefined;
const DOCUMENTED = process.env.BENCH_TS_DOCUMENTED !== '0';
const SCENARIOS = ['sustained', 'burst', 'spike'].map((name) => ({
  name,
  file: fileURLToPath(new URL(`../scenarios/${name}.yaml`, import.meta.url)),
}));

const dir = tempDir('time-scale');
const onePhase = join(dir, 'one-phase.yaml');
writeFileSync(
  onePhase,
  `name: one-phase\ndescription: one phase of 100 rpm\nphases:\n  - { name: steady, duration: ${SECONDS}s, rpm: 100, warmup: 10s }\nthresholds: { documentedTargets: false }\n`,
);
let runNo = 0;
const runDir = (label) => join(dir, `${String(runNo++).padStart(3, '0')}-${label}`);
const steady = (summary, phase = 0) => summary.phases[phase].steadyLatencyMs;

console.log(
  `time-scale fidelity: k = 1 references concurrently, then k = ${SCALES.join(', ')} × ${REPS} (one phase, ${SECONDS} s)${DOCUMENTED ? `, the documented scenarios at k = ${SCENARIO_K} × ${REPS}` : ''}; runs in ${dir}`,
);
const started = performance.now();

// k = 1: every reference, REF_REPS times, at once.
const references = (label, file, extra = []) =>
  Promise.all(Array.from({ length: REF_REPS }, () => loadproofRun(file, runDir(`${label}-k1`), extra)));
const refs = await Promise.all([
  references('nominal', onePhase, ['--mock-profile', 'nominal']),
  references('stall', onePhase, ['--mock-profile', 'stall']),
  ...(DOCUMENTED && storedK1 === undefined ? SCENARIOS.map((s) => references(s.name, s.file)) : []),
]);
const [nominal1, stall1, ...ranDocs1] = refs;
/** What a k = 1 reference of the documented suite keeps: per phase its name, verdict and steady p95. */
const kept = (r) => ({
  summary: {
    phases: r.summary.phases.map((p) => ({
      name: p.name,
      verdict: p.verdict,
      steadyLatencyMs: { p95: steady({ phases: [p] }).p95 },
    })),
  },
});
const docs1 = storedK1 ?? ranDocs1.map((runs) => runs.map(kept));
if (DOCUMENTED && storedK1 === undefined && K1_FILE !== undefined) writeFileSync(K1_FILE, JSON.stringify(docs1));
/** The median of a figure over the k = 1 runs, and how far the runs spread around it (as ratios). */
const reference = (runs, figure) => {
  const values = runs.map((r) => figure(r.summary));
  const mid = median(values);
  const ratios = values.filter((v) => v !== null && mid).map((v) => v / mid);
  // Same seeds: the spread is the harness's timing noise, not sampling spread.
  return {
    value: mid,
    spread:
      ratios.length === 0
        ? ''
        : `k = 1 runs (same seeds) ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}× their median`,
  };
};
console.log(`k = 1 references done in ${((performance.now() - started) / 1000).toFixed(0)} s`);

const scaled = new Map(SCALES.map((k) => [k, { nominal: [], stall: [] }]));
const docsScaled = []; // per rep: { wallS, summaries }
for (let rep = 0; rep < REPS; rep++) {
  for (const k of SCALES) {
    scaled
      .get(k)
      .nominal.push(
        await loadproofRun(onePhase, runDir(`nominal-k${k}`), ['--mock-profile', 'nominal', '--time-scale', String(k)]),
      );
    scaled
      .get(k)
      .stall.push(
        await loadproofRun(onePhase, runDir(`stall-k${k}`), ['--mock-profile', 'stall', '--time-scale', String(k)]),
      );
  }
  if (DOCUMENTED) {
    const summaries = [];
    const wallsS = [];
    for (const s of SCENARIOS) {
      const t0 = performance.now();
      summaries.push(
        (await loadproofRun(s.file, runDir(`${s.name}-k${SCENARIO_K}`), ['--time-scale', String(SCENARIO_K)])).summary,
      );
      wallsS.push((performance.now() - t0) / 1000);
    }
    docsScaled.push({ wallS: wallsS.reduce((a, b) => a + b, 0), wallsS, summaries });
  }
}

const rows = [];
const within = (ratio, tolerance) => Math.abs(ratio - 1) <= tolerance;
const nominalRef = reference(nominal1, (s) => steady(s).p95);
for (const k of SCALES) {
  const p95 = median(scaled.get(k).nominal.map((r) => steady(r.summary).p95));
  const ratio = p95 / nominalRef.value;
  rows.push({
    figure: `nominal p95 (model ms), k = ${k} vs k = 1 (${nominalRef.spread})`,
    loadproof: p95,
    peer: nominalRef.value,
    ratio,
    target: 'within 3 % of k = 1',
    met: within(ratio, 0.03),
  });
}
const stallRef = reference(stall1, (s) => steady(s).p50);
for (const k of SCALES) {
  const p50 = median(scaled.get(k).stall.map((r) => steady(r.summary).p50));
  const diff = p50 - stallRef.value;
  rows.push({
    figure: `stall p50 (model ms), k = ${k} vs k = 1 (difference ${diff.toFixed(1)} ms; ${stallRef.spread})`,
    loadproof: p50,
    peer: stallRef.value,
    ratio: p50 / stallRef.value,
    target: k === 20 ? 'within 5 ms of k = 1' : 'within 5 ms of k = 1 (asked at k = 20 only)',
    met: k === 20 ? Math.abs(diff) <= 5 : null,
  });
}
if (DOCUMENTED) {
  const wallS = median(docsScaled.map((d) => d.wallS));
  const each = SCENARIOS.map((s, i) => `${s.name} ${median(docsScaled.map((d) => d.wallsS[i])).toFixed(1)}`).join(', ');
  rows.push({
    figure: `sustained + burst + spike at k = ${SCENARIO_K}, wall s in all (29.5 min of model time; ${each}; indicative on a shared machine)`,
    loadproof: wallS,
    peer: null,
    ratio: null,
    target: SCENARIO_K === 500 ? 'at most 8 s' : 'at most 8 s (asked at k = 500)',
    met: SCENARIO_K === 500 ? wallS <= 8 : null,
  });
  for (const [i, s] of SCENARIOS.entries()) {
    for (const [p, phase] of docs1[i][0].summary.phases.entries()) {
      const { value: ref, spread } = reference(docs1[i], (summary) => steady(summary, p).p95);
      const p95 = median(docsScaled.map((d) => steady(d.summaries[i], p).p95));
      const refVerdicts = docs1[i].map((r) => r.summary.phases[p].verdict);
      const verdicts = docsScaled.map((d) => d.summaries[i].phases[p].verdict);
      // The same verdict as every k = 1 run gave; when those disagree among themselves, the row cannot judge the time
      // scale.
      const refsAgree = refVerdicts.every((r) => r === refVerdicts[0]);
      const same = verdicts.every((v) => v === refVerdicts[0]);
      rows.push({
        figure: `${s.name}/${phase.name} p95 (model ms), k = ${SCENARIO_K} vs k = 1 (${spread}); verdicts ${verdicts.join('/')} vs ${refVerdicts.join('/')}`,
        loadproof: p95,
        peer: ref,
        ratio: ref === null || p95 === null ? null : p95 / ref,
        target: 'within 1 % of k = 1, same verdict',
        met: !refsAgree ? null : ref !== null && p95 !== null && within(p95 / ref, 0.01) && same,
      });
    }
  }
}
report('time-scale', rows, [
  `medians of ${REPS} time-scaled runs against the median of ${REF_REPS} k = 1 runs each${storedK1 === undefined ? '' : ` (the documented suite's k = 1 runs read from ${K1_FILE})`}; no pinning; total ${((performance.now() - started) / 60_000).toFixed(1)} min of wall time`,
]);
