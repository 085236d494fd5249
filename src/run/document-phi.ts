/**
 * What became of a document's known PHI, as its line of documents.ndjson keeps it: counts only, never the PHI. Read
 * from its ground truth, the entities identification found (merged, at document offsets), the obfuscation's output
 * and the cuts of its first split; the items themselves are dropped once counted.
 */
import type { FoundEntity, ObfuscateAnswer } from '../client/index.js';
import { type PhiTally, tallyText, textRecall } from '../phi/index.js';
import type { SentDocument } from '../texts/index.js';

interface DocumentPhi {
  /** Known items it held; null when nothing is known of it. */
  readonly phiPlanted: number | null;
  /** Their fates; null without ground truth or without an output to read. */
  readonly phi: PhiTally | null;
}

export function documentPhi(
  document: SentDocument | undefined,
  entities: readonly FoundEntity[] | undefined,
  output: ObfuscateAnswer | undefined,
): DocumentPhi {
  const planted = document?.phi;
  if (planted === undefined) return { phiPlanted: null, phi: null };
  if (output === undefined || entities === undefined) return { phiPlanted: planted.length, phi: null };
  const recall = textRecall({ text: document!.text, planted, entities, output, cuts: document!.cuts });
  return { phiPlanted: planted.length, phi: tallyText(recall, document!.lengthClass ?? 'unknown') };
}
