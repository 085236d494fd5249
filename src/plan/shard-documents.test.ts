import { describe, expect, it } from 'vitest';

import { parseScenario } from '../scenario/index.js';
import { buildPlan } from './build-plan.js';
import { holdsSeq, positionOfSeq, seqInWholePlan, shardPlan } from './shard.js';
import { documentsHeld, holdsDocument } from './shard-documents.js';

const deid = parseScenario(
  'name: d\ndescription: d\nmode: deid\nmaxInFlight: 8\nphases:\n  - { name: a, duration: 1m, rpm: 4 }\n  - { name: b, duration: 1m, rpm: 2 }\n',
  'd.yaml',
);
/** Documents of 1, 3, 2, 2, 1 and 4 pieces: seqs [0], [1–3], [4–5], [6–7] in phase a, [8], [9–12] in phase b. */
const whole = (() => {
  const counts = [1, 3, 2, 2, 1, 4];
  let i = 0;
  return buildPlan(deid, { piecesOfNextDocument: () => counts[i++]! });
})();

describe('a deid plan in shards of whole documents', () => {
  it('gives shard i the documents d ≡ i (mod n), every piece of each, with their seqs and times in the whole plan', () => {
    expect([...whole.documents!.firstSeq]).toEqual([0, 1, 4, 6, 8, 9, 13]);
    const s0 = shardPlan(whole, { index: 0, count: 2 });
    const s1 = shardPlan(whole, { index: 1, count: 2 });
    // Documents 0, 2, 4 on shard 0; 1, 3, 5 on shard 1.
    expect([...s0.seqs!]).toEqual([0, 4, 5, 8]);
    expect([...s1.seqs!]).toEqual([1, 2, 3, 6, 7, 9, 10, 11, 12]);
    expect([s0.arrivals, s1.arrivals]).toEqual([4, 9]);
    expect(s0.phases.map((p) => [...p.arrivalsMs])).toEqual([[0, 30_000, 30_000], [60_000]]);
    expect(s1.phases.map((p) => p.documents!.count)).toEqual([2, 1]);
    expect([documentsHeld(s0), documentsHeld(s1), documentsHeld(whole)]).toEqual([3, 3, 6]);
    expect([0, 1, 2, 3, 4, 5].filter((d) => holdsDocument(s1, d))).toEqual([1, 3, 5]);
    // The whole plan's documents stay: a seq finds its document as in the whole plan.
    expect(s1.documents).toBe(whole.documents);
  });

  it('maps every local arrival to its seq and back; a seq of another shard is not held', () => {
    const s1 = shardPlan(whole, { index: 1, count: 2 });
    for (let local = 0; local < s1.arrivals; local++) {
      const seq = seqInWholePlan(s1, local);
      expect(positionOfSeq(s1, seq)).toBe(local);
      expect(holdsSeq(s1, seq)).toBe(true);
    }
    for (const seq of [0, 4, 5, 8, 13]) expect(holdsSeq(s1, seq)).toBe(false);
  });

  it('offers each shard its share of the phase rate and keeps the whole phase bands', () => {
    const s0 = shardPlan(whole, { index: 0, count: 2 });
    const a = whole.phases[0]!;
    // Phase a: 3 of its 8 requests on shard 0.
    expect(s0.phases[0]!.offeredRpm).toBeCloseTo((a.offeredRpm * 3) / 8, 9);
    expect(s0.phases[0]!.fromRpm).toBe(a.fromRpm);
    expect(s0.phases[0]!.bands.reduce((n, b) => n + b.arrivals, 0)).toBe(3);
  });

  it('together, the shards send the whole plan, each request once', () => {
    for (const count of [1, 2, 3, 4]) {
      const seqs = Array.from({ length: count }, (_, index) => [...shardPlan(whole, { index, count }).seqs!]).flat();
      expect(seqs.sort((x, y) => x - y)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    }
  });
});
