/**
 * The texts the shards sent, as one payload record (run.json's `end.payload`): texts add up; sizes recombine (min of
 * the minima, max of the maxima, the mean weighted by each shard's texts). Every shard draws the same seeded sequence
 * of documents up to its last request, so the documents the whole plan drew are the furthest shard's, not a sum; a
 * deid shard counts only its own documents (whole documents each), so there they add up.
 * Absent when any shard did not record it: a record of part of the texts would pass for the whole.
 */
import type { RunEnd } from '../judge/index.js';

type PayloadRecord = NonNullable<RunEnd['payload']>;
type SizeStats = NonNullable<PayloadRecord['characters']>;

export function mergedPayload(
  records: readonly (PayloadRecord | undefined)[],
  deid: boolean,
): PayloadRecord | undefined {
  if (records.length === 0 || records.some((r) => r === undefined)) return undefined;
  const all = records as readonly PayloadRecord[];
  const furthest = all.reduce((a, b) => (b.documents > a.documents ? b : a));
  return {
    ...furthest,
    texts: all.reduce((sum, r) => sum + r.texts, 0),
    characters: mergedSizes(all.map((r) => [r.texts, r.characters])),
    estimatedTokens: mergedSizes(all.map((r) => [r.texts, r.estimatedTokens])),
    documents: deid ? all.reduce((sum, r) => sum + r.documents, 0) : furthest.documents,
    splitDocuments: deid ? all.reduce((sum, r) => sum + r.splitDocuments, 0) : furthest.splitDocuments,
  };
}

/** Sizes of several shares of the texts as one; null when none was sent. */
function mergedSizes(shares: readonly (readonly [number, SizeStats | null])[]): SizeStats | null {
  const sent = shares.filter((s): s is readonly [number, SizeStats] => s[1] !== null && s[0] > 0);
  if (sent.length === 0) return null;
  const count = sent.reduce((sum, [n]) => sum + n, 0);
  const mean = sent.reduce((sum, [n, s]) => sum + n * s.mean, 0) / count;
  return {
    min: Math.min(...sent.map(([, s]) => s.min)),
    // Each shard's mean is rounded to 0.1: so is their weighted mean.
    mean: Math.round(mean * 10) / 10,
    max: Math.max(...sent.map(([, s]) => s.max)),
  };
}
