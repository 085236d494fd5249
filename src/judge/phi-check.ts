/**
 * A `phi.` threshold on a phase: known PHI left in clear (whole or in part) in the output of its documents delivered
 * whole. A leak seen there is the service's: the tool sent the whole document, took every entity identification gave
 * and read the obfuscation's own output. Documents not delivered whole say nothing either way (their failures are the
 * error checks' business); with none delivered, or no ground truth, the check is inconclusive, never a pass.
 * A rate is a sample's: `<` passes only when its 95 % upper bound is under the target, fails only when its lower bound
 * is not; `==` compares what was counted.
 */
import { leaked } from '../phi/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, compare } from './check.js';
import { lowerBound95, upperBound95 } from './phi-bound.js';
import type { PhiSlice } from './phi-slice.js';

type PhiThreshold = Extract<Threshold, { readonly kind: 'phi' }>;

const percent = (fraction: number): string =>
  fraction === 0 ? '0 %' : `${(fraction * 100).toFixed(fraction < 0.01 ? 3 : 2)} %`;

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
  const aside =
    phi.notVerified.items === 0
      ? ''
      : `; ${phi.notVerified.items} more in ${phi.notVerified.documents} documents not delivered whole, not judged`;
  if (n === 0) return none(`no known PHI item in a document delivered whole${aside}`);
  const x = leaked(phi.verified.overall);
  if (t.measure === 'count') {
    const status = compare(x, t.op, t.value) ? 'pass' : 'fail';
    return {
      ...base,
      status,
      observed: x,
      interval: null,
      reason: `${x} of ${n} known PHI items left in clear${aside}`,
    };
  }
  const rate = x / n;
  const upper = upperBound95(x, n);
  const lower = lowerBound95(x, n);
  const status = rateStatus(rate, lower, upper, t);
  const tooFew = status === 'inconclusive' ? `: too few items to decide ${t.source.trim()}` : '';
  return {
    ...base,
    status,
    observed: rate,
    interval: null,
    reason: `${x} of ${n} known PHI items left in clear (${percent(rate)}; at most ${percent(upper)} at 95 %)${tooFew}${aside}`,
  };
}

function rateStatus(rate: number, lower: number, upper: number, t: PhiThreshold): Check['status'] {
  if (t.op === '==') return compare(rate, '==', t.value) ? 'pass' : 'fail';
  // An upper bound claimed (< or <=) is met when even the rate's upper bound meets it; a lower bound the reverse.
  const [sure, doubt] = t.op === '<' || t.op === '<=' ? [upper, lower] : [lower, upper];
  if (compare(sure, t.op, t.value)) return 'pass';
  if (!compare(doubt, t.op, t.value)) return 'fail';
  return 'inconclusive';
}
