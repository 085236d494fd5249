/**
 * Run-on lines: what real notes hold besides sentences — a contact list, the care team's signature blocks, a
 * pharmacy's fill history, a visit log pasted from a table — one long line of entries with no sentence end. A line
 * longer than a piece makes the split cut inside it, between words, so an item there can straddle the cut: the
 * case the seams exist for, which sentences alone never produce.
 */
import { nextInt, pick, type Rng } from '../core/index.js';
import { fakeClinician, fakeDate, fakeMrn, fakeName, fakePhone, fakeStreet } from './fake-phi.js';
import type { Fakers } from './fakers.js';
import { type Fragment, joinFragments, type Plant, planted } from './planting.js';

/** Writes one entry of a run-on line; every item of PHI in it goes through `plant`. */
type Entry = (rng: Rng, fakers: Fakers, plant: Plant) => string;

interface RunOnLine {
  readonly label: string;
  readonly separator: string;
  readonly entry: Entry;
}

const RELATIONS = ['daughter', 'son', 'spouse', 'neighbor', 'sister', 'brother', 'guardian'] as const;
const DRUGS = ['metformin 500 mg', 'lisinopril 10 mg', 'atorvastatin 40 mg', 'albuterol inhaler', 'sertraline 50 mg'];

const address = (f: Fakers, p: Plant): string =>
  `${p('ADDRESS', fakeStreet(f.us))}, ${p('ADDRESS', f.us.location.city())}, ${f.us.location.state({ abbreviated: true })} ${p('ZIP', f.us.location.zipCode())}`;

const LINES: readonly RunOnLine[] = [
  {
    label: 'Contacts',
    separator: '; ',
    entry: (r, f, p) => `${p('NAME', fakeName(f))} (${pick(r, RELATIONS)}) ${p('PHONE', fakePhone(f.us))}`,
  },
  {
    label: 'Care team',
    separator: ' | ',
    entry: (r, f, p) =>
      `${p('NAME', r.next() < 0.5 ? fakeName(f) : fakeClinician(f))}, ${pick(r, ['MD', 'DO', 'NP', 'RN'])}, ${address(f, p)}, tel ${p('PHONE', fakePhone(f.us))}, fax ${p('FAX', fakePhone(f.us))}`,
  },
  {
    label: 'Pharmacy fills',
    separator: '; ',
    entry: (r, f, p) =>
      `${pick(r, DRUGS)} filled ${p('DATE', fakeDate(f.us, 2019, 2026))} at ${address(f, p)} for ${p('NAME', fakeName(f))}`,
  },
  {
    label: 'Visit log',
    separator: ' | ',
    entry: (r, f, p) =>
      `${p('DATE', fakeDate(f.us, 2019, 2026))} ${pick(r, ['clinic', 'ED', 'telehealth', 'home visit'])} ${p('NAME', fakeName(f))} MRN ${p('MRN', fakeMrn(f.us))} seen with ${p('NAME', fakeName(f))}`,
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

/** A run-on line's length: over a piece (`limitChars`), up to twice it: the split cuts inside it once or twice. */
export const runOnLineChars = (rng: Rng, limitChars: number): number => nextInt(rng, limitChars + 20, 2 * limitChars);
