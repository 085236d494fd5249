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

  it('leave documents not delivered whole out of the rate, and say so', () => {
    const s = new PhiSlice();
    s.add(doc(1000, 0));
    s.add(doc(40, 0, 'failed'));
    s.add(doc(30, 0, 'ok', 1));
    const c = phiCheck(base, s, threshold('phi.rate(leaked) < 0.5%'));
    expect(c.status).toBe('pass');
    expect(c.reason).toBe(
      '0 of 1000 known PHI items left in clear (0 %, at most 0.299 % at 95 %); 70 more in 2 documents not delivered whole, not judged',
    );
  });

  it('never pass over known PHI seen in clear in an output left out of the verdict (cut at the output cap)', () => {
    const s = new PhiSlice();
    s.add(doc(5000, 0));
    // The densest document: the service's answer was cut at its output cap, and 5 of its items show in the output.
    s.add(doc(40, 5, 'ok', 1));
    for (const source of ['phi.rate(leaked) == 0', 'phi.count(leaked) == 0', 'phi.rate(leaked) < 0.5%']) {
      const c = phiCheck(base, s, threshold(source));
      expect(c.status, source).toBe('inconclusive');
      expect(c.reason, source).toMatch(
        /^5 of 40 known PHI items in 1 document not delivered whole \(not judged\) showed in clear in an output, so no pass; 0 of 5000 known PHI items left in clear/,
      );
    }
  });

  it('never pass an exact count while items went unjudged; a fail stays a fail', () => {
    const s = new PhiSlice();
    s.add(doc(5000, 0));
    s.add(doc(40, 0, 'failed'));
    for (const source of ['phi.rate(leaked) == 0', 'phi.count(leaked) == 0', 'phi.count(leaked) < 3']) {
      const c = phiCheck(base, s, threshold(source));
      expect(c.status, source).toBe('inconclusive');
      expect(c.reason, source).toMatch(
        /^40 known PHI items in 1 document not delivered whole \(not judged\) could hold a leak, so no pass; 0 of 5000 /,
      );
    }
    const leaky = new PhiSlice();
    leaky.add(doc(100, 1));
    leaky.add(doc(40, 3, 'ok', 1));
    expect(phiCheck(base, leaky, threshold('phi.count(leaked) == 0')).status).toBe('fail');
    expect(phiCheck(base, leaky, threshold('phi.rate(leaked) == 0')).status).toBe('fail');
  });

  it('say the bound a rate was decided on', () => {
    const leaky = new PhiSlice();
    leaky.add(doc(1080, 15));
    const fail = phiCheck(base, leaky, threshold('phi.rate(leaked) < 0.5%'));
    expect(fail.status).toBe('fail');
    expect(fail.reason).toBe(
      '15 of 1080 known PHI items left in clear (1.39 %, at least 0.858 % at 95 %, not < 0.5 %)',
    );
    const few = new PhiSlice();
    few.add(doc(500, 1));
    const unsure = phiCheck(base, few, threshold('phi.rate(leaked) < 0.5%'));
    expect(unsure.status).toBe('inconclusive');
    expect(unsure.reason).toBe(
      '1 of 500 known PHI items left in clear (0.200 %, between 0.010 % and 0.945 % at 95 %): too few items to decide phi.rate(leaked) < 0.5%',
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
