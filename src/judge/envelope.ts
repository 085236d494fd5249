/**
 * The rate-limit envelope: which 429s are a finding against the service. A pure function of the
 * plan, the recorded attempts and the limits (the documented ones, or those support raised), so a
 * run can be judged again offline from its events.
 *
 * The rule. Replay the documented token bucket (refill at sustainedRpm; capacity
 * (burstRpm − sustainedRpm) × burstMinutes + 1, full at the first request) over the requests the
 * server *admitted* — every attempt that did not get a 429, unanswered ones included. Each of them
 * reached the server at some moment between its send and its answer (one without an answer: up to
 * the service's 15 s timeout after its send, since the server may take it after the client gave up),
 * and we cannot tell when: the replay takes, at each instant, the least the bucket can have held
 * over every such placement. A
 * 429 is a finding only when, at every instant it could have reached the server (from its send to
 * its answer), that least still held at least 1 + margin tokens:
 *
 *   least(τ) = min over s < τ of [ capacity + refill × (τ − s) − #admitted that may have arrived in (s, τ] ]
 *   (an attempt may have arrived in (s, τ] when it was sent by τ and answered after s)
 *   margin (tokens) = sustained rate × 1 s + 1
 *
 * A 429 inside the envelope by less than the margin is at the **edge**: counted and reported, never
 * a finding. A 429 with less than one token is outside the envelope: expected.
 *
 * Why this way, and not by the plan's intended times (what it replaced):
 *  - Which request gets the last token is decided by the server's clock, not ours. Replaying the
 *    requests it admitted asks the right question: given what it let through, was there room for
 *    this one? A plan that spends the allowance exactly (burst.yaml) leaves each later arrival
 *    inside by one token, and any lag hands that token to a neighbour: judging identities accused
 *    a correct service; judging counts does not.
 *  - The server saw each request later than we noted its send, by an amount we cannot see: the way
 *    there, our own event loop holding it, a connection still being opened (seen: 20 s of model
 *    time at the start of a run at k = 60). Arrivals squeezed together while the bucket is full
 *    waste refill, so a bucket can hold many tokens fewer than a replay at send times, and that
 *    deficit lasts. The answer bounds the arrival from above, whatever delayed it, so the least
 *    over placements inside [send, answer] holds for every cause of delay. It costs about the
 *    requests in flight (rate × round trip): a few tokens at the documented rates.
 *  - A real gateway refills in steps and is not aligned with our clock: a step of up to 1 s costs
 *    at most sustained rate × 1 s tokens. The last token is for rounding and ties.
 * The margin is small next to what a broken limiter costs: one 10 % tighter than documented refuses
 * requests while the documented bucket still holds tens of tokens.
 */

import { countAtMost, countBelow } from '../core/index.js';
import type { AdmittedTimes, RefusedAttempts } from '../recorder/index.js';
import {
  bucketCapacityTokens,
  type EnvelopeLimits,
  envelopeMarginTokens,
  IDENTIFICATION_LIMITS,
} from '../spec/index.js';

export { bucketCapacityTokens, envelopeMarginTokens };

/** What the judge reads of the recorded attempts (the Recorder's AttemptLog). */
interface EnvelopeAttempts {
  /**
   * The attempts not refused with a 429: send times and the latest each may have arrived, each sorted ascending (model
   * ms); see AttemptLog.
   */
  admittedTimes(unansweredWithinMs: number): AdmittedTimes;
  /** The 429s: when each was sent and answered (model ms), and its request's phase index. */
  refusedAttempts(): RefusedAttempts;
}

/** One phase's 429s, judged against the envelope. */
export interface EnvelopePhase {
  /** 429 answers received on the phase's requests (every attempt counts). */
  readonly http429: number;
  /** 429s the limits clearly allow: the bucket held ≥ 1 + margin tokens wherever the request could have met it. */
  readonly findings: number;
  /** 429s inside the envelope by less than the margin: reported, never a finding. */
  readonly edge: number;
  /**
   * The most tokens the replayed bucket surely held when a 429 came (each 429's least over its window); null without
   * 429s.
   */
  readonly maxTokensAt429: number | null;
  /** The run's margin (tokens), repeated here so each phase's check can say it. */
  readonly marginTokens: number;
  /**
   * A shard's: the service's bucket was shared with the other shards, so its 429s are not judged here (the merge judges
   * them).
   */
  readonly shared?: boolean;
}

/** The envelope's judgement of a run. */
export interface EnvelopeJudgement {
  /** Per phase of the plan, in order. */
  readonly phases: readonly EnvelopePhase[];
  /** Tokens above 1 a 429 needs to be a finding. */
  readonly marginTokens: number;
  /** The bucket replayed: its capacity (tokens) and refill (requests per minute). */
  readonly capacityTokens: number;
  readonly refillRpm: number;
}

/** Judges every 429 of a run against the envelope (see the top of this file). */
export function envelopeFindings(
  plan: { readonly phases: readonly unknown[] },
  attempts: EnvelopeAttempts,
  limits: EnvelopeLimits,
): EnvelopeJudgement {
  const marginTokens = envelopeMarginTokens(limits);
  // An attempt without an answer may have reached the service after the client gave up: until the service's own
  // timeout.
  const least = new LeastBucket(
    attempts.admittedTimes(IDENTIFICATION_LIMITS.timeoutS * 1000),
    bucketCapacityTokens(limits),
    limits.sustainedRpm / 60_000,
  );
  const refused = attempts.refusedAttempts();
  const counts = plan.phases.map(() => ({ http429: 0, findings: 0, edge: 0, maxTokensAt429: null as number | null }));
  for (let j = 0; j < refused.sentAtMs.length; j++) {
    const tokens = least.over(refused.sentAtMs[j]!, refused.endAtMs[j]!);
    const phase = counts[refused.phase[j]!];
    if (phase === undefined)
      throw new RangeError(`a 429 for phase ${refused.phase[j]}, but the plan has ${counts.length}`);
    phase.http429++;
    phase.maxTokensAt429 = Math.max(phase.maxTokensAt429 ?? Number.NEGATIVE_INFINITY, tokens);
    if (tokens >= 1 + marginTokens) phase.findings++;
    else if (tokens >= 1) phase.edge++;
  }
  return {
    phases: counts.map((c) => ({ ...c, marginTokens })),
    marginTokens,
    capacityTokens: bucketCapacityTokens(limits),
    refillRpm: limits.sustainedRpm,
  };
}

/**
 * least(τ), the fewest tokens the bucket can have held at τ (see the top of this file), in closed form:
 *   least(τ) = min(capacity, capacity + refill·τ − A(τ) + min(P(τ), E(τ) − refill·τ))
 * with A(τ) the admitted sends at or before τ, E(τ) the answers before τ, and P(τ) the least of
 * (answers before e) − refill·e over the answers e before τ: the minimum over s is reached just
 * before an answer, or just before τ (where it is capacity − the attempts in flight). Between two
 * sends least(τ) never falls, so its least over a window is at the window's start or at a send
 * inside it: those are looked up by blocks of minima.
 */
class LeastBucket {
  /** P, indexed by how many answers came before: prefixLeast[k] over the first k answers. */
  private readonly prefixLeast: Float64Array;
  /** least() at each send (the sends being sorted), and its minimum per block of BLOCK sends. */
  private readonly atSend: Float64Array;
  private readonly blockLeast: Float64Array;
  private static readonly BLOCK = 256;

  constructor(
    private readonly times: AdmittedTimes,
    private readonly capacity: number,
    private readonly refillPerMs: number,
  ) {
    const ends = times.endAtMs;
    this.prefixLeast = new Float64Array(ends.length + 1);
    this.prefixLeast[0] = Number.POSITIVE_INFINITY;
    // k answers came before ends[k] (for tied answers the prefix minimum keeps the first, whose count is right).
    for (let k = 0; k < ends.length; k++)
      this.prefixLeast[k + 1] = Math.min(this.prefixLeast[k]!, k - refillPerMs * ends[k]!);
    const sends = times.sentAtMs;
    this.atSend = Float64Array.from(sends, (t) => this.at(t));
    this.blockLeast = new Float64Array(Math.ceil(sends.length / LeastBucket.BLOCK)).fill(Number.POSITIVE_INFINITY);
    for (let i = 0; i < sends.length; i++) {
      const b = Math.floor(i / LeastBucket.BLOCK);
      this.blockLeast[b] = Math.min(this.blockLeast[b]!, this.atSend[i]!);
    }
  }

  /** least(τ). */
  at(atMs: number): number {
    const sent = countAtMost(this.times.sentAtMs, atMs);
    const answered = countBelow(this.times.endAtMs, atMs);
    const inner = Math.min(this.prefixLeast[answered]!, answered - this.refillPerMs * atMs);
    return Math.min(this.capacity, this.capacity + this.refillPerMs * atMs - sent + inner);
  }

  /** The least of least(τ) over τ in [fromMs, toMs]. */
  over(fromMs: number, toMs: number): number {
    let result = this.at(fromMs);
    const sends = this.times.sentAtMs;
    let i = countAtMost(sends, fromMs);
    const end = countAtMost(sends, toMs);
    const B = LeastBucket.BLOCK;
    while (i < end) {
      if (i % B === 0 && i + B <= end) {
        result = Math.min(result, this.blockLeast[i / B]!);
        i += B;
      } else {
        result = Math.min(result, this.atSend[i]!);
        i++;
      }
    }
    return result;
  }
}

/** The envelope check's reason for one phase. */
/** A shard's 429s, counted and left unjudged: it saw only its share of the traffic the bucket was filled by. */
export function sharedEnvelope(judged: EnvelopeJudgement): EnvelopeJudgement {
  return { ...judged, phases: judged.phases.map((p) => ({ ...p, findings: 0, edge: 0, shared: true })) };
}

export function describeEnvelopePhase(p: EnvelopePhase): string {
  if (p.shared === true)
    return `${p.http429} 429s, not judged in a shard: the service's bucket was shared with the other shards' requests, which this shard did not see (loadproof merge judges every 429 against it)`;
  const margin = p.marginTokens.toFixed(1);
  const edge =
    p.edge === 0
      ? ''
      : `; ${p.edge} at the edge (inside the envelope by less than the margin of ${margin} tokens: the timing cannot tell, so not a finding)`;
  if (p.findings === 0) return `${p.http429} 429s, none on a request the documented limits clearly allow${edge}`;
  const most = (p.maxTokensAt429 ?? 0).toFixed(1);
  return `${p.findings} 429s on requests the documented limits clearly allow (the bucket, replayed over the requests the service admitted, held up to ${most} tokens where 1 + a margin of ${margin} was enough): a finding against the service${edge}`;
}
