/** What one shard of a run sent, as the report and the brief name it. */
import type { Summary } from '../judge/index.js';

/** A shard's share of the plan: every n-th request, or in mode deid whole documents (all the pieces of each). */
export function shardShare(summary: Summary): string {
  const { index, count } = summary.shard!;
  return summary.deid === null
    ? `the arrivals whose seq ≡ ${index} (mod ${count})`
    : `the documents d ≡ ${index} (mod ${count}), each with every one of its pieces (their requests keep their seqs in the whole plan)`;
}
