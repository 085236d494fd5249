/**
 * Sharded runs (`run --shard i/n`): shard i of n takes the arrivals whose seq ≡ i (mod n) of the whole
 * plan, so every shard sees every phase, interleaved, at 1/n of its rate, and n shards started together
 * send the whole plan. A shard's plan keeps the whole plan's phase rates and bands (the spec's targets follow
 * the rate the service sees, not a shard's share); its arrivals, their counts and its offered rates are its own.
 * Requests keep their seq in the whole plan, so `loadproof merge` can put the shards' events together.
 * A deid plan is sharded by whole documents instead (shard-documents.ts).
 */
import { UsageError } from '../core/index.js';
import { bandSlices } from './bands.js';
import type { Plan, PlannedPhase, Shard } from './build-plan.js';
import { shardDocuments } from './shard-documents.js';

/** More shards than this is a fleet, not a test: each holds a connection pool and a process. */
export const MAX_SHARDS = 1000;

/** `--shard i/n`, 0 ≤ i < n ≤ MAX_SHARDS. */
export function parseShard(text: string): Shard {
  const parts = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(parts?.[1]);
  const count = Number(parts?.[2]);
  if (parts === null || !(count >= 1 && count <= MAX_SHARDS && index < count)) {
    throw new UsageError(
      `--shard: expected i/n with 0 ≤ i < n ≤ ${MAX_SHARDS} (i is 0-based, as JOB_COMPLETION_INDEX), got "${text}"`,
      'nothing was sent',
    );
  }
  return { index, count };
}

/** Whether `shard` (read from a file) is one a run writes: 0 ≤ index < count ≤ MAX_SHARDS, integers. */
export function isShard(shard: unknown): shard is Shard {
  const { index, count } = (shard ?? {}) as { index?: unknown; count?: unknown };
  return (
    Number.isInteger(count) &&
    Number.isInteger(index) &&
    (count as number) >= 1 &&
    (count as number) <= MAX_SHARDS &&
    (index as number) >= 0 &&
    (index as number) < (count as number)
  );
}

/** The seq, in the whole plan, of a shard's `local`-th arrival. */
export function seqInWholePlan(plan: Plan, local: number): number {
  if (plan.seqs !== undefined) return plan.seqs[local]!;
  return plan.shard === undefined ? local : local * plan.shard.count + plan.shard.index;
}

/** The position among this plan's arrivals of `seq` (of the whole plan): an integer from 0 when the plan holds it. */
export function positionOfSeq(plan: Plan, seq: number): number {
  if (plan.seqs !== undefined) return positionIn(plan.seqs, seq);
  return plan.shard === undefined ? seq : (seq - plan.shard.index) / plan.shard.count;
}

/** The index of `seq` in the ascending `seqs`, or -1 when it is not there. */
function positionIn(seqs: Uint32Array, seq: number): number {
  let lo = 0;
  let hi = seqs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid] === seq) return mid;
    if (seqs[mid]! < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Whether `seq` (of the whole plan) is one of this plan's arrivals. */
export function holdsSeq(plan: Plan, seq: number): boolean {
  const position = positionOfSeq(plan, seq);
  return Number.isInteger(position) && position >= 0 && position < plan.arrivals;
}

/** Shard `shard` of the whole plan `plan`. */
export function shardPlan(plan: Plan, shard: Shard): Plan {
  if (plan.shard !== undefined) throw new Error('a shard of a shard');
  // Each shard holds at least one request in flight: more shards than maxInFlight would hold more than it.
  if (shard.count > plan.scenario.maxInFlight) {
    throw new UsageError(
      `--shard ${shard.index}/${shard.count}: ${shard.count} shards would hold at least ${shard.count} requests in flight, more than the scenario's maxInFlight of ${plan.scenario.maxInFlight}`,
      'use at most maxInFlight shards; nothing was sent',
    );
  }
  if (plan.documents !== undefined) return shardDocuments(plan, shard);
  let seq = 0;
  const phases = plan.phases.map((p): PlannedPhase => {
    const mine: number[] = [];
    for (const t of p.arrivalsMs) if (seq++ % shard.count === shard.index) mine.push(t);
    const arrivalsMs = Float64Array.from(mine);
    // The bands follow the phase's rates (fromRpm, toRpm), as in the whole plan; their planned counts and
    // the offered rate are the shard's share.
    return {
      ...p,
      arrivalsMs,
      offeredRpm: p.offeredRpm / shard.count,
      peakRpm: p.peakRpm / shard.count,
      bands: bandSlices(p, arrivalsMs),
    };
  });
  return { ...plan, phases, arrivals: phases.reduce((sum, p) => sum + p.arrivalsMs.length, 0), shard };
}

/**
 * The requests a plan may hold in flight: the scenario's maxInFlight, or a shard's share of it (at least 1), so that
 * the shards together hold no more.
 */
export function maxInFlightOf(plan: Plan): number {
  const most = plan.scenario.maxInFlight;
  return plan.shard === undefined ? most : Math.max(1, Math.floor(most / plan.shard.count));
}
