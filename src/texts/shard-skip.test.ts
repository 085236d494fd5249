import { describe, expect, it } from 'vitest';

import { createTextSource, type PayloadSettings, piecesPerDocument } from './sources.js';

const SETTINGS: PayloadSettings = {
  source: 'generated',
  minChars: 400,
  maxChars: 850,
  lengths: { typical: 1, long: 1 },
  split: { maxTokens: 1024, margin: 0.3 },
  seed: 5,
};

describe("a deid shard's texts", () => {
  it("send the whole plan's texts at its seqs, keep and count only its own documents", () => {
    const pieces = piecesPerDocument(SETTINGS, undefined, 'deid');
    const firstSeq = [0];
    for (let d = 0; d < 6; d++) firstSeq.push(firstSeq[d]! + pieces());
    const whole = createTextSource(SETTINGS, undefined, 'deid');
    const wholeTexts = Array.from({ length: firstSeq[6]! }, (_, seq) => whole.textFor(seq));

    // Shard 1 of 2: documents 1, 3 and 5.
    const shard = createTextSource(SETTINGS, undefined, 'deid');
    for (const d of [0, 2, 4]) shard.skip(d);
    for (const d of [1, 3, 5])
      for (let seq = firstSeq[d]!; seq < firstSeq[d + 1]!; seq++) expect(shard.textFor(seq)).toBe(wholeTexts[seq]);
    expect([0, 1, 2, 3, 4, 5].map((d) => shard.document(d) !== undefined)).toEqual([
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
    expect(shard.record().documents).toBe(3);
    expect(whole.record().documents).toBe(6);
    const split = (ds: number[]): number => ds.filter((d) => firstSeq[d + 1]! - firstSeq[d]! > 1).length;
    expect(split([1, 3, 5])).toBeGreaterThan(0);
    expect(shard.record().splitDocuments).toBe(split([1, 3, 5]));
  });
});
