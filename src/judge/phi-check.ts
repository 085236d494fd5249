/**
 * A `phi.` threshold on a phase: known PHI left in clear (whole or in part) in the output of its documents delivered
 * whole. A leak seen there is the service's: the tool sent the whole document, took every entity identification gave
 * and read the obfuscation's own output. With none delivered, or no ground truth, the check is inconclusive.
 * The documents not delivered whole (failed, dropped, unsent, an answer cut at the output cap) are left out of the
 * count, but never let it pass over them: when known PHI of theirs showed in clear in an output, the leak cannot be
 * told apart from the tool's (the load run does not re-ask a piece cut at the cap), so no pass; and an exact count
 * (`count`, `==`) cannot pass while items went unjudged, as they could hold a leak. A fail stays a fail.
 * A reason keeps its parentheses free of "; " and ": ", which end the first clause a report's short line quotes.
 * A rate is a sample's: `<` passes only when its 95 % upper bound is under the target, fails only when its lower bound
 * is not, and the reason names the bound it was decided on; `==` compares what was counted.
 */
import { leaked } from '../phi/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, compare } from './check.js';
import { lowerBound95, upperBound95 } from './phi-bound.js';
import type { PhiSlice } from './phi-slice.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

type PhiThreshold = Extract<Threshold, { readonly kind: 'phi' }>;

const percent = (fraction: number): string =>
  fraction === 0 ? '0 %' : `${(fraction * 100).toFixed(fraction < 0.01 ? 3 : 2)} %`;
/** A target as written (0.005 → "0.5 %"), not rounded to a figure's decimals. */
const targetText = (t: PhiThreshold): string =>
  t.measure === 'count' ? String(t.value) : `${Number((t.value * 100).toPrecision(6))} %`;

export function phiCheck(
  base: { id: string; phase: string; what: string },
  phi: PhiSlice | undefined,
  t: PhiThreshold,
): Check {
  const none = (reason: string): Check => ({ ...base, status: 'inconclusive', observed: null, interval: null, reason });
  if (phi === undefined || phi.known === 0)
    return none(
      'no ground truth: no document of the phase had known PHI, and what identification missed cannot be known without it',
    );
  const n = phi.verified.overall.planted;
  if (n === 0) return none(`no known PHI item in a document delivered whole${notVerifiedText(phi)}`);
  const x = leaked(phi.verified.overall);
  const judged = t.measure === 'count' ? countCheck(x, n, t) : rateCheck(x, n, t);
  return withUnjudged({ ...base, interval: null, ...judged }, phi, t);
}

type Judged = Pick<Check, 'status' | 'observed' | 'reason'>;

function countCheck(x: number, n: number, t: PhiThreshold): Judged {
  const status = compare(x, t.op, t.value) ? 'pass' : 'fail';
  return { status, observed: x, reason: `${x} of ${n} known PHI items left in clear` };
}

function rateCheck(x: number, n: number, t: PhiThreshold): Judged {
  const rate = x / n;
  const upper = upperBound95(x, n);
  const lower = lowerBound95(x, n);
  const head = `${x} of ${n} known PHI items left in clear (${percent(rate)}, `;
  if (t.op === '==') {
    const status = compare(rate, '==', t.value) ? 'pass' : 'fail';
    return { status, observed: rate, reason: `${head}at most ${percent(upper)} at 95 %)` };
  }
  // An upper bound claimed (< or <=) is met when even the rate's upper bound meets it; a lower bound the reverse.
  const [sure, doubt] = t.op === '<' || t.op === '<=' ? [upper, lower] : [lower, upper];
  const side = (bound: number): string => (bound === upper ? 'at most' : 'at least');
  if (compare(sure, t.op, t.value))
    return { status: 'pass', observed: rate, reason: `${head}${side(sure)} ${percent(sure)} at 95 %)` };
  if (!compare(doubt, t.op, t.value)) {
    const not = `not ${t.op} ${targetText(t)}`;
    return { status: 'fail', observed: rate, reason: `${head}${side(doubt)} ${percent(doubt)} at 95 %, ${not})` };
  }
  const between = `between ${percent(lower)} and ${percent(upper)} at 95 %`;
  return {
    status: 'inconclusive',
    observed: rate,
    reason: `${head}${between}): too few items to decide ${t.source.trim()}`,
  };
}

/** What the documents not delivered whole add: a pass over them becomes inconclusive when they could hide a leak. */
function withUnjudged(c: Check, phi: PhiSlice, t: PhiThreshold): Check {
  const u = phi.notVerified;
  if (u.items === 0) return c;
  const exact = t.measure === 'count' || t.op === '==';
  if (c.status !== 'pass' || (u.leaked === 0 && !exact)) return { ...c, reason: c.reason + notVerifiedText(phi) };
  // Said first: a report's short line keeps a reason's first clause, and this is why the check did not pass.
  const docs = `${plural(u.documents, 'document')} not delivered whole (not judged)`;
  const why =
    u.leaked > 0
      ? `${u.leaked} of ${u.items} known PHI items in ${docs} showed in clear in an output, so no pass`
      : `${u.items} known PHI items in ${docs} could hold a leak, so no pass`;
  return { ...c, status: 'inconclusive', reason: `${why}; ${c.reason}` };
}

function notVerifiedText(phi: PhiSlice): string {
  const u = phi.notVerified;
  if (u.items === 0) return '';
  const docs = plural(u.documents, 'document');
  const seen = u.leaked === 0 ? '' : `, and ${u.leaked} of them showed in clear in an output`;
  return `; ${u.items} more in ${docs} not delivered whole, not judged${seen}`;
}
