import { describe, expect, it } from 'vitest';

import type { RunEnd } from '../judge/index.js';
import { mergedPayload } from './merge-payload.js';

type Payload = NonNullable<RunEnd['payload']>;
const shard = (over: Partial<Payload>): Payload => ({
  source: 'documents',
  path: null,
  texts: 0,
  characters: null,
  estimatedTokens: null,
  documents: 0,
  splitDocuments: 0,
  split: { maxTokens: 1024, margin: 0.3 },
  empty: [],
  ...over,
});

describe("the shards' payload records as one", () => {
  it('adds the texts, recombines the sizes (the mean weighted by texts) and takes the documents of the furthest shard', () => {
    const merged = mergedPayload(
      [
        shard({
          texts: 3,
          characters: { min: 100, mean: 200, max: 300 },
          estimatedTokens: { min: 120, mean: 240, max: 360 },
          documents: 9,
          splitDocuments: 2,
        }),
        shard({
          texts: 1,
          characters: { min: 50, mean: 600, max: 600 },
          estimatedTokens: { min: 60, mean: 720, max: 720 },
          documents: 10,
          splitDocuments: 3,
        }),
        shard({ texts: 0, documents: 4, splitDocuments: 1 }),
      ],
      false,
    );
    expect(merged).toEqual(
      shard({
        texts: 4,
        // (3 × 200 + 1 × 600) ÷ 4 = 300; a shard that sent nothing weighs nothing.
        characters: { min: 50, mean: 300, max: 600 },
        estimatedTokens: { min: 60, mean: 360, max: 720 },
        documents: 10,
        splitDocuments: 3,
      }),
    );
  });

  it('is absent when a shard did not record its own: part of the texts would pass for the whole', () => {
    expect(mergedPayload([shard({ texts: 2 }), undefined], false)).toBeUndefined();
    expect(mergedPayload([], true)).toBeUndefined();
  });

  it('says none were sent when no shard sent a text', () => {
    expect(mergedPayload([shard({}), shard({})], false)?.characters).toBeNull();
  });

  it('adds the documents of deid shards: each counts its own whole documents', () => {
    const merged = mergedPayload(
      [shard({ texts: 5, documents: 3, splitDocuments: 1 }), shard({ texts: 4, documents: 2, splitDocuments: 2 })],
      true,
    );
    expect(merged).toMatchObject({ texts: 9, documents: 5, splitDocuments: 3 });
  });
});
