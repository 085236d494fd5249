import { describe, expect, it } from 'vitest';

import { parseThreshold, type Threshold } from '../scenario/index.js';
import { phiCheck } from './phi-check.js';
import { PhiSlice } from './phi-slice.js';

const base = { id: 'threshold', phase: 'a', what: 'x' };
const threshold = (source: string) => parseThreshold(source) as Extract<Threshold, { kind: 'phi' }>;

/** A document delivered whole (or not) whose `planted` items left `leaked` in clear. */
function doc(planted: number, leaked: number, outcome = 'ok', truncated = 0) {
  const overall = { planted, found: planted - leaked, removed: planted - leaked, partlyInClear: 0, inClear: leaked };
  return {
    outcome,
    identification: { truncated },
    phiPlanted: planted,
    phi:
      outcome === 'ok'
        ? { overall, byKind: {}, byLengthClass: {}, straddling: overall, method: { aligned: 1, text: 0 } }
        : null,
  };
}

describe('phi thresholds', () => {
  it('fail on a leak in a document delivered whole', () => {
    const s = new PhiSlice();
    s.add(doc(100, 1));
    expect(phiCheck(base, s, threshold('phi.rate(leaked) == 0'))).toMatchObject({ status: 'fail', observed: 0.01 });
    expect(phiCheck(base, s, threshold('phi.count(leaked) == 0'))).toMatchObject({ status: 'fail', observed: 1 });
  });

  it('leave documents not delivered whole out of the verdict, and say so', () => {
    const s = new PhiSlice();
    s.add(doc(100, 0));
    s.add(doc(40, 0, 'failed'));
    s.add(doc(30, 2, 'ok', 1));
    const c = phiCheck(base, s, threshold('phi.rate(leaked) == 0'));
    expect(c.status).toBe('pass');
    expect(c.reason).toBe(
      '0 of 100 known PHI items left in clear (0 %; at most 2.95 % at 95 %); 70 more in 2 documents not delivered whole, not judged',
    );
  });

  it('judge a rate below a target on its 95 % upper bound', () => {
    const few = new PhiSlice();
    few.add(doc(500, 0));
    expect(phiCheck(base, few, threshold('phi.rate(leaked) < 0.1%')).status).toBe('inconclusive');
    const many = new PhiSlice();
    many.add(doc(5000, 0));
    expect(phiCheck(base, many, threshold('phi.rate(leaked) < 0.1%')).status).toBe('pass');
    const leaky = new PhiSlice();
    leaky.add(doc(5000, 50));
    expect(phiCheck(base, leaky, threshold('phi.rate(leaked) < 0.1%')).status).toBe('fail');
  });

  it('are inconclusive without ground truth, never a pass', () => {
    const s = new PhiSlice();
    s.add({ outcome: 'ok', identification: { truncated: 0 }, phiPlanted: null, phi: null });
    const c = phiCheck(base, s, threshold('phi.count(leaked) == 0'));
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toContain('what identification missed cannot be known');
  });
});
