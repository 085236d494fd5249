// npm run mock-recall [-- --documents 1000 --seed 1 --profile nominal] — the embedded mock's PHI recall on the
// generated corpus, in-process (no HTTP): each document is split as mode deid splits it (pieces and seams), each
// piece goes through the mock's detector, the entities found go through the mock's obfuscation, and each planted
// item is counted found, removed, partly or wholly left in clear (src/phi), by kind, length class and for items that
// straddle a cut. Deterministic: the same arguments print the same table.
import { parseArgs } from 'node:util';

import { createRng } from '../dist/core/index.js';
import { PROFILES } from '../dist/mock/index.js';
import { detectPhi } from '../dist/mock/phi/detect.js';
import { obfuscate } from '../dist/mock/phi/obfuscate.js';
import { addTallies, EMPTY_TALLY, leaked, locateAnnotations, tallyText, textRecall } from '../dist/phi/index.js';
import {
  DEFAULT_SPLIT_LIMITS,
  generateDocument,
  maxPieceLength,
  seamPieces,
  splitDocument,
} from '../dist/texts/index.js';

const { values } = parseArgs({
  options: {
    documents: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    profile: { type: 'string', default: 'nominal' },
  },
});
const documents = Number(values.documents);
if (!Number.isInteger(documents) || documents < 1) {
  console.error(`--documents: expected a whole number ≥ 1, got ${JSON.stringify(values.documents)}`);
  process.exit(2);
}
const profile = PROFILES[values.profile];
if (profile === undefined) {
  console.error(
    `--profile: expected one of ${Object.keys(PROFILES).join(', ')}, got ${JSON.stringify(values.profile)}`,
  );
  process.exit(2);
}

/** The document's ground truth as spans: the generator's spans, or its values located in the text. */
function plantedOf(doc) {
  const phi = doc.phi ?? [];
  if (phi.every((p) => typeof p.start === 'number')) return phi;
  return locateAnnotations(
    doc.text,
    phi.map((p) => ({ text: p.value, kind: p.type })),
  ).planted;
}

/** Entities of every piece, in the document's offsets, overlaps merged (what the deid chain's merge does). */
function identify(text) {
  const split = splitDocument(text, DEFAULT_SPLIT_LIMITS);
  const pieces = [...split, ...seamPieces(text, split, maxPieceLength(DEFAULT_SPLIT_LIMITS))];
  const spans = pieces
    .flatMap((p) =>
      detectPhi(p.text, Number.POSITIVE_INFINITY, profile.entityDropRate).entities.map((e) => ({
        type: e.type,
        start: e.start + p.offset,
        end: e.end + p.offset,
      })),
    )
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const merged = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && s.start < last.end)
      merged[merged.length - 1] = { ...last, end: Math.max(last.end, s.end) };
    else merged.push(s);
  }
  return { entities: merged, cuts: split.slice(1).map((p) => p.offset) };
}

const rng = createRng(Number(values.seed));
let tally = EMPTY_TALLY;
for (let i = 0; i < documents; i++) {
  const doc = generateDocument(rng);
  const { entities, cuts } = identify(doc.text);
  const output = obfuscate({ text: doc.text, entities, style: 'tag' });
  const recall = textRecall({ text: doc.text, planted: plantedOf(doc), entities, output, cuts });
  tally = addTallies(tally, tallyText(recall, doc.lengthClass));
}

const pct = (n, d) => (d === 0 ? '–' : `${((100 * n) / d).toFixed(2)} %`);
const row = (label, c) =>
  `| ${label} | ${c.planted} | ${c.found} | ${pct(c.found, c.planted)} | ${leaked(c)} | ${pct(leaked(c), c.planted)} |`;
console.log(`Mock detector (profile ${profile.name}) on ${documents} generated documents (seed ${values.seed}):\n`);
console.log('| items | planted | found | recall | leaked | leak rate |');
console.log('|---|---|---|---|---|---|');
console.log(row('all', tally.overall));
for (const [kind, c] of Object.entries(tally.byKind)) console.log(row(kind, c));
for (const [lengthClass, c] of Object.entries(tally.byLengthClass)) console.log(row(`length ${lengthClass}`, c));
console.log(row('straddling a cut', tally.straddling));
