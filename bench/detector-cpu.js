// The mock's PHI detector: its load time (a fresh process importing it, paid by the mock worker on every run) and
// its CPU per identification request (texts as mode deid sends them: generated documents split into pieces of at
// most 853 characters), for the detector at commit c65fc22 (bench/lib/detector-c65fc22.js), today's, and the
// option not taken: compromise's own name tagger (`nlp(text).people()`) per request. In one sitting, medians of
// repetitions. Usage: npm run bench:detector [BENCH_REPS=5 BENCH_PIECES=2000]
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { createRng } from '../dist/core/index.js';
import { findEntities } from '../dist/mock/phi/detect.js';
import { generateDocument, splitDocument } from '../dist/texts/index.js';
import { median } from './lib/bench-kit.js';
import { findEntities as findEntitiesBefore } from './lib/detector-c65fc22.js';

const REPS = Number(process.env.BENCH_REPS ?? 5);
const PIECES = Number(process.env.BENCH_PIECES ?? 2000);
const ROOT = new URL('..', import.meta.url);

/** Milliseconds a fresh node process takes to import `specifier` (resolved from the repository's root). */
function loadMs(specifier) {
  const code = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  const runs = Array.from({ length: REPS }, () =>
    Number(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: fileURLToPath(ROOT) })),
  );
  return median(runs);
}

const rng = createRng(1);
const pieces = [];
while (pieces.length < PIECES) pieces.push(...splitDocument(generateDocument(rng).text).map((p) => p.text));
pieces.length = PIECES;
const meanChars = pieces.reduce((s, p) => s + p.length, 0) / pieces.length;

/** CPU microseconds per piece of `detect` over all pieces (after a warm-up pass), median of the repetitions. */
function cpuPerRequestUs(detect, count = pieces.length) {
  for (let i = 0; i < count; i++) detect(pieces[i]);
  const runs = Array.from({ length: REPS }, () => {
    const start = process.cpuUsage();
    for (let i = 0; i < count; i++) detect(pieces[i]);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  });
  return median(runs);
}

const { default: nlp } = await import('compromise');
const options = [
  {
    name: 'c65fc22 (regular expressions, the generator’s name lists)',
    module: './bench/lib/detector-c65fc22.js',
    detect: findEntitiesBefore,
  },
  { name: 'today (rules + compromise’s names, packed)', module: './dist/mock/phi/detect.js', detect: findEntities },
  {
    name: 'compromise tagger per request (option)',
    module: 'compromise',
    detect: (t) => nlp(t).people().out('offset'),
    count: 200,
  },
  { name: 'compromise/one (tokeniser only, no names)', module: 'compromise/one', detect: null },
];
const rows = options.map((o) => ({
  figure: o.name,
  loadMs: loadMs(o.module),
  cpuUs: o.detect === null ? null : cpuPerRequestUs(o.detect, o.count),
}));

const fmt = (v, digits) => (v === null ? '–' : v.toFixed(digits));
console.log(`${PIECES} pieces of ${meanChars.toFixed(0)} characters on average; medians of ${REPS} repetitions\n`);
console.log('| detector | load (fresh process) | CPU per identification request | × c65fc22 |');
console.log('|---|---|---|---|');
for (const r of rows) {
  const ratio = r.cpuUs === null ? null : r.cpuUs / rows[0].cpuUs;
  console.log(`| ${r.figure} | ${fmt(r.loadMs, 0)} ms | ${fmt(r.cpuUs, 1)} µs | ${fmt(ratio, 2)} |`);
}
if (process.env.BENCH_JSON) writeFileSync(process.env.BENCH_JSON, JSON.stringify({ bench: 'detector-cpu', rows }));
