/**
 * A deid plan's shard: whole documents, document d on shard d mod n, so that every piece of a document, and its
 * obfuscation call, is sent by one process (a document's chain cannot be split between processes). Its arrivals keep
 * their seqs in the whole plan (`seqs`), and its `documents` stay the whole plan's: a seq finds its document, and a
 * document its pieces, as in the whole plan.
 */
import { bandSlices } from './bands.js';
import type { Plan, PlannedPhase, Shard } from './build-plan.js';

/** Whether a plan sends document `d` (of the whole plan): every document, or a deid shard's d ≡ i (mod n). */
export function holdsDocument(plan: Plan, d: number): boolean {
  return plan.shard === undefined || d % plan.shard.count === plan.shard.index;
}

/** How many documents a deid plan sends (a shard's share of the whole plan's); 0 for a plan of requests. */
export function documentsHeld(plan: Plan): number {
  const total = plan.documents?.count ?? 0;
  const shard = plan.shard;
  return shard === undefined ? total : Math.max(0, Math.ceil((total - shard.index) / shard.count));
}

/** Shard `shard` of the whole deid plan `plan`: its documents d ≡ i (mod n), each with all of its pieces. */
export function shardDocuments(plan: Plan, shard: Shard): Plan {
  const firstSeq = plan.documents!.firstSeq;
  const seqs: number[] = [];
  let seq = 0;
  let d = 0;
  const phases = plan.phases.map((p): PlannedPhase => {
    const phaseFirstSeq = seq;
    const end = seq + p.arrivalsMs.length;
    const mine: number[] = [];
    let documents = 0;
    // A document's pieces all arrive in its phase, at its time.
    for (; seq < end; d++) {
      const held = d % shard.count === shard.index;
      if (held) documents++;
      for (const next = firstSeq[d + 1]!; seq < next; seq++) {
        if (!held) continue;
        mine.push(p.arrivalsMs[seq - phaseFirstSeq]!);
        seqs.push(seq);
      }
    }
    const arrivalsMs = Float64Array.from(mine);
    // As for a shard of requests: the bands follow the whole phase's rates; the offered rates are the shard's share.
    const share = p.arrivalsMs.length === 0 ? 1 / shard.count : mine.length / p.arrivalsMs.length;
    return {
      ...p,
      arrivalsMs,
      offeredRpm: p.offeredRpm * share,
      peakRpm: p.peakRpm * share,
      bands: bandSlices(p, arrivalsMs),
      ...(p.documents === undefined ? {} : { documents: { ...p.documents, count: documents } }),
    };
  });
  return { ...plan, phases, arrivals: seqs.length, shard, seqs: Uint32Array.from(seqs) };
}
