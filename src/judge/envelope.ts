/**
 * The rate-limit envelope: which 429s are a finding against the service. A pure function of the
 * plan, the recorded attempts, the limits (the documented ones, or those support raised) and what is
 * known of the client's bucket when the run began, so a run can be judged again offline from its events.
 *
 * The rule. Replay the documented token bucket (refill at sustainedRpm; capacity
 * (burstRpm − sustainedRpm) × burstMinutes + 1) over the requests the server *admitted* — every
 * attempt that did not get a 429, unanswered ones included. Each of them reached the server at some
 * moment between its send and its answer (one without an answer: up to the service's 15 s timeout
 * after its send, since the server may take it after the client gave up), and we cannot tell when:
 * the replay takes, at each instant, the least the bucket can have held over every such placement.
 * A 429 is a finding only when, at every instant it could have reached the server (from its send to
 * its answer), that least still held at least 1 + margin tokens:
 *
 *   least(τ) = min( min over s < τ of [ capacity + refill × (τ − s) − M(s, τ) ],
 *                   max over a in [T0, τ] of [ level(a) + refill × (τ − a) − M(a, τ) ] )
 *   M(s, τ) = #admitted that may have arrived in (s, τ]: sent by τ and answered after s
 *   margin (tokens) = sustained rate × 1 s + 1
 *
 * The first term is a bucket full at some moment; the second is a bucket that held level(a) at a moment
 * a of the run, T0 being its first send. Nothing tells how full the bucket was at T0: a run right after
 * another (a rerun, two scenarios back to back in CI) starts it near empty, and a limiter set exactly as
 * documented then refuses what a full bucket would have let through. So level(T0) is 0 unless it is
 * known: the user declared the client idle before the run (min(capacity, refill × idle)), or the run
 * started its own mock (full). At any later moment the bucket held at least 0 tokens, so each answer
 * e is an anchor too, with level(e) = 0: after the run's own quiet spell the bucket has refilled
 * (capacity / refill of quiet and it is full again: the anchor then never binds), and a limiter that
 * refills slower than documented shows once its bucket runs dry, whatever it held at the start.
 * Every 429 says which start it was judged from, and how many more would be findings from a full one.
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
 *  - The start level is not inferred from how much the service admitted early on: a limiter more
 *    generous than documented (faster refill) admits that much from an empty start, and would then
 *    be accused of the 429s a documented bucket from the inferred level would not give.
 * The margin is small next to what a broken limiter costs: one 10 % tighter than documented refuses
 * requests while the documented bucket still holds tens of tokens.
 */

import type { AdmittedTimes, RefusedAttempts } from '../recorder/index.js';
import {
  bucketCapacityTokens,
  type EnvelopeLimits,
  envelopeMarginTokens,
  IDENTIFICATION_LIMITS,
} from '../spec/index.js';
import { type BucketStart, fullStartHint, type JudgedStart, judgeStart, undecidedStart } from './bucket-start.js';
import type { CheckStatus } from './check.js';
import { LeastBucket } from './least-bucket.js';

export { bucketCapacityTokens, envelopeMarginTokens };
export type { BucketStart, JudgedStart };

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
  /** The findings there would be from a bucket full at the start (equal to findings when it was judged so). */
  readonly ifFullAtStart: number;
  /**
   * The most tokens the replayed bucket surely held when a 429 came (each 429's least over its window); null without
   * 429s.
   */
  readonly maxTokensAt429: number | null;
  /** The run's margin (tokens), repeated here so each phase's check can say it. */
  readonly marginTokens: number;
  /** What the bucket was judged to hold at the start, repeated here so each phase's check can say it. */
  readonly start: JudgedStart;
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
  /** What it was judged to hold at the run's first send. */
  readonly start: JudgedStart;
}

/** Judges every 429 of a run against the envelope (see the top of this file). */
export function envelopeFindings(
  plan: { readonly phases: readonly unknown[] },
  attempts: EnvelopeAttempts,
  limits: EnvelopeLimits,
  start: BucketStart,
): EnvelopeJudgement {
  const marginTokens = envelopeMarginTokens(limits);
  const capacity = bucketCapacityTokens(limits);
  const judgedStart = judgeStart(start, capacity, limits.sustainedRpm);
  // An attempt without an answer may have reached the service after the client gave up: until the service's own
  // timeout.
  const times = attempts.admittedTimes(IDENTIFICATION_LIMITS.timeoutS * 1000);
  const refused = attempts.refusedAttempts();
  let firstSendMs = times.sentAtMs[0] ?? Number.POSITIVE_INFINITY;
  for (const t of refused.sentAtMs) firstSendMs = Math.min(firstSendMs, t);
  const refillPerMs = limits.sustainedRpm / 60_000;
  const least = new LeastBucket(times, capacity, refillPerMs, judgedStart.tokens, firstSendMs);
  const fromFull = judgedStart.full ? least : new LeastBucket(times, capacity, refillPerMs, capacity, firstSendMs);
  const counts = plan.phases.map(() => ({
    http429: 0,
    findings: 0,
    edge: 0,
    ifFullAtStart: 0,
    maxTokensAt429: null as number | null,
  }));
  for (let j = 0; j < refused.sentAtMs.length; j++) {
    const tokens = least.over(refused.sentAtMs[j]!, refused.endAtMs[j]!);
    const phase = counts[refused.phase[j]!];
    if (phase === undefined)
      throw new RangeError(`a 429 for phase ${refused.phase[j]}, but the plan has ${counts.length}`);
    phase.http429++;
    phase.maxTokensAt429 = Math.max(phase.maxTokensAt429 ?? Number.NEGATIVE_INFINITY, tokens);
    if (tokens >= 1 + marginTokens) phase.findings++;
    else if (tokens >= 1) phase.edge++;
    const full = fromFull === least ? tokens : fromFull.over(refused.sentAtMs[j]!, refused.endAtMs[j]!);
    if (full >= 1 + marginTokens) phase.ifFullAtStart++;
  }
  return {
    phases: counts.map((c) => ({ ...c, marginTokens, start: judgedStart })),
    marginTokens,
    capacityTokens: capacity,
    refillRpm: limits.sustainedRpm,
    start: judgedStart,
  };
}

/** A shard's 429s, counted and left unjudged: it saw only its share of the traffic the bucket was filled by. */
export function sharedEnvelope(judged: EnvelopeJudgement): EnvelopeJudgement {
  return {
    ...judged,
    phases: judged.phases.map((p) => ({ ...p, findings: 0, edge: 0, ifFullAtStart: 0, shared: true })),
  };
}

/**
 * The envelope check's status for one phase. A shard's 429s are the merge's to judge; findings fail; 429s that only
 * the unknown start keeps from being findings (a full bucket makes them findings, the assumed one does not) decide
 * nothing: a limiter tighter than documented and a bucket drained before the run look alike.
 */
export function envelopeStatus(p: EnvelopePhase): CheckStatus {
  if (p.shared === true) return p.http429 > 0 ? 'inconclusive' : 'pass';
  if (p.findings > 0) return 'fail';
  return p.ifFullAtStart > p.findings ? 'inconclusive' : 'pass';
}

/** The envelope check's reason for one phase. */
export function describeEnvelopePhase(p: EnvelopePhase): string {
  if (p.shared === true)
    return `${p.http429} 429s, not judged in a shard: the service's bucket was shared with the other shards' requests, which this shard did not see (loadproof merge judges every 429 against it)`;
  if (p.http429 === 0) return '0 429s, none on a request the documented limits clearly allow';
  const margin = p.marginTokens.toFixed(1);
  const edge =
    p.edge === 0
      ? ''
      : `; ${p.edge} at the edge (inside the envelope by less than the margin of ${margin} tokens: the timing cannot tell, so not a finding)`;
  if (p.findings === 0) {
    const none = `${p.http429} 429s, none on a request the documented limits clearly allow, ${p.start.assumption}${edge}`;
    return p.ifFullAtStart > 0 ? `${none}; ${undecidedStart(p.start, p.ifFullAtStart)}` : none;
  }
  const most = (p.maxTokensAt429 ?? 0).toFixed(1);
  const hint = fullStartHint(p.start, p.ifFullAtStart - p.findings);
  return `${p.findings} 429s on requests the documented limits clearly allow (the bucket, replayed over the requests the service admitted and ${p.start.assumption}, held up to ${most} tokens where 1 + a margin of ${margin} was enough): a finding against the service${edge}${hint}`;
}
