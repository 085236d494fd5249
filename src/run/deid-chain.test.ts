import { describe, expect, it } from 'vitest';

import { TimeScale } from '../core/index.js';
import { identificationStageMs } from './document-record.js';

/**
 * Three pieces in order (concurrency 1), each 1,000 model ms in the service. At k = 60 a mock holds each
 * answer 20 wall ms (1,200 model ms) and each hop costs 1 wall ms of our own (60 model ms raw): the raw
 * times pile that up along the chain, the stage time must not.
 */
describe('identificationStageMs', () => {
  const chain = (k: number, holdMs: number, hopMs: number) => {
    const pieces = [];
    let ready = 0;
    for (let i = 0; i < 3; i++) {
      const end = ready + hopMs + 1000 + holdMs;
      // latencyMs as the client accounts it: the service's 1,000 ms, the hop ÷ k, the hold taken off.
      pieces.push({
        seq: 10 + i,
        intendedAtMs: 0,
        ...(i === 0 ? {} : { readyAtMs: ready }),
        endAtMs: end,
        latencyMs: 1000 + hopMs / k,
      });
      ready = end + hopMs;
    }
    return pieces;
  };
  const releasedBy = new Map([
    [11, 10],
    [12, 11],
  ]);

  it('is the last answer from the document time at k = 1', () => {
    const pieces = chain(1, 0, 1);
    expect(identificationStageMs(pieces, releasedBy, TimeScale.REAL)).toBeCloseTo(pieces[2]!.endAtMs, 6);
  });

  it('counts neither the mock hold nor our own hops k times at k = 60', () => {
    const atK = identificationStageMs(chain(60, 1200, 60), releasedBy, TimeScale.of(60));
    const atOne = identificationStageMs(chain(1, 0, 1), releasedBy, TimeScale.REAL);
    // Raw, the last answer comes at 3 × (60 + 1,000 + 1,200) + 2 × 60 = 6,900 ms; as judged, within a hop of k = 1's
    // 3,005.
    expect(chain(60, 1200, 60)[2]!.endAtMs).toBe(6900);
    expect(Math.abs(atK - atOne)).toBeLessThan(10);
  });

  it('takes the slowest of pieces sent together', () => {
    const together = [
      { seq: 0, intendedAtMs: 500, endAtMs: 1500, latencyMs: 1000 },
      { seq: 1, intendedAtMs: 500, endAtMs: 2300, latencyMs: 1800 },
    ];
    expect(identificationStageMs(together, new Map(), TimeScale.REAL)).toBe(1800);
  });
});
