/**
 * Run-on lines: what real notes hold besides sentences — a medication list or a visit log pasted from a
 * table — one long line of entries with no sentence
 * end. A line longer than a piece makes the split cut inside it, between words, so an item there can straddle the
 * cut: the case the seams exist for, which sentences alone never produce.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import { fakeClinician, fakeDate, fakeName } from './fake-phi.js';
import type { Fakers } from './fakers.js';
import { type Fragment, joinFragments, type Plant, planted } from './planting.js';

/** Writes one entry of a run-on line; every item of PHI in it goes through `plant`. */
type Entry = (rng: Rng, fakers: Fakers, plant: Plant) => string;

interface RunOnLine {
  readonly label: string;
  readonly separator: string;
  readonly entry: Entry;
}

const DRUGS = ['metformin/500mg', 'lisinopril/10mg', 'atorvastatin/40mg', 'albuterol/90mcg', 'sertraline/50mg'];
const DOSING = ['BID-with-meals', 'daily-AM', 'nightly', 'PRN-wheeze'];
const INDICATIONS = ['T2DM', 'HTN', 'hyperlipidemia', 'asthma', 'depression'];
const SETTINGS = ['clinic', 'ED', 'telehealth', 'home-visit'];

const date = (f: Fakers, p: Plant): string => p('DATE', fakeDate(f.us, 2019, 2026));
/** "Dr. X" or "X, NP": the item is the name, not the title. */
const clinician = (r: Rng, f: Fakers, p: Plant): string =>
  r.next() < 0.5 ? `Dr. ${p('NAME', fakeClinician(f))}` : `${p('NAME', fakeName(f))}, ${pick(r, ['MD', 'NP', 'PA'])}`;

// Pasted from a table: cells between bars, spaces only inside values, so a cut between words most often falls inside
// an item. Mostly clinical cells around each item: a line dense with PHI would have an answer past the service's
// output cap (300 tokens).
const LINES: readonly RunOnLine[] = [
  {
    label: 'Medications',
    separator: ';',
    entry: (r, f, p) =>
      `${pick(r, DRUGS)}|${pick(r, DOSING)}|${pick(r, INDICATIONS)}|refills:${nextInt(r, 0, 5)}|since:${date(f, p)}|by:${clinician(r, f, p)}`,
  },
  {
    label: 'Visit log',
    separator: ';',
    entry: (r, f, p) =>
      `${date(f, p)}|${pick(r, SETTINGS)}|BP:${nextInt(r, 105, 165)}/${nextInt(r, 60, 98)}|HR:${nextInt(r, 55, 110)}|SpO2:${nextInt(r, 91, 100)}%|wt:${nextInt(r, 45, 120)}kg|temp:${(36 + r.next() * 2).toFixed(1)}C|${clinician(r, f, p)}`,
  },
];

/** One run-on line of at least `minChars` characters: a label, then entries until it is that long. */
export function runOnLine(rng: Rng, fakers: Fakers, minChars: number): Fragment {
  const line = pick(rng, LINES);
  const entries: Fragment[] = [planted(() => `${line.label}:`)];
  let length = entries[0]!.text.length;
  while (length < minChars) {
    const entry = planted((plant) => line.entry(rng, fakers, plant));
    entries.push(entry);
    length += line.separator.length + entry.text.length;
  }
  const [label, ...rest] = entries;
  return joinFragments([label!, joinFragments(rest, line.separator)], ' ');
}

/** A run-on line's length: over a piece (`limitChars`), not much over: the split cuts inside it once. */
export const runOnLineChars = (rng: Rng, limitChars: number): number =>
  nextInt(rng, limitChars + 20, Math.round(1.2 * limitChars));
