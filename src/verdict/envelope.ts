/**
 * The rate-limit envelope: which 429s are a finding against the service. A pure function of the
 * plan, the recorded attempts and the limits (the documented ones, or those support raised), so a
 * run can be judged again offline from its events.
 *
 * The rule. Replay the documented token bucket (refill at sustainedRpm; capacity
 * (burstRpm − sustainedRpm) × burstMinutes + 1, full at the first request) over the requests the
 * server *admitted* — every attempt that did not get a 429, unanswered ones included — at their
 * actual send times. A 429 is a finding only when, at every instant it could have reached the
 * server (from its send to its answer), that bucket still held at least 1 + margin tokens:
 *
 *   margin (tokens) = sustained rate × (timing uncertainty + 1 s) + 1
 *   timing uncertainty (model ms) = the slowest 429 round trip + the largest send lag of the run
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
 *  - The server saw each request later than we sent it, by up to the way there. If every admitted
 *    request reached it within δ of its send, its bucket holds at most sustained rate × δ tokens
 *    fewer than our replay at any instant (arrivals squeezed together by δ earn δ less refill; a
 *    later arrival only leaves more). A 429 is answered at once by the limiter, so its round trip
 *    bounds the way there; the send lag bounds how long our own event loop can hold a request
 *    after noting its send time. Both are measured in the run, so a busy machine or a high time
 *    scale widens its own margin instead of producing findings.
 *  - A real gateway refills in steps and is not aligned with our clock: a step of up to 1 s costs
 *    at most sustained rate × 1 s tokens. The last token is for rounding and ties.
 * The margin is small next to what a broken limiter costs: one 10 % tighter than documented refuses
 * requests while the documented bucket still holds tens of tokens.
 */

import type { RefusedAttempts } from '../recorder/index.js';
import type { EnvelopeLimits } from '../spec/index.js';

/** The constant parts of the margin. */
export const ENVELOPE_MARGIN = {
  /** A real bucket may refill in steps this far apart (model ms), not aligned with our clock. */
  refillStepMs: 1000,
  /** Rounding, and requests at the same instant counted on either side. */
  safetyTokens: 1,
} as const;

/** What the judge reads of the recorded attempts (the Recorder's AttemptLog). */
export interface EnvelopeAttempts {
  /** The largest send lag (fired − intended) of the run, model ms. */
  readonly maxSendLagMs: number;
  /** Send times of the attempts not refused with a 429, ascending (model ms). */
  admittedSentAtMs(): Float64Array;
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
  /** The most tokens the replayed bucket held when a 429 came (each 429's least over its window); null without 429s. */
  readonly maxTokensAt429: number | null;
  /** The run's margin (tokens), repeated here so each phase's check can say it. */
  readonly marginTokens: number;
}

/** The envelope's judgement of a run. */
export interface EnvelopeJudgement {
  /** Per phase of the plan, in order. */
  readonly phases: readonly EnvelopePhase[];
  /** Tokens above 1 a 429 needs to be a finding. */
  readonly marginTokens: number;
  /** Timing uncertainty (model ms): slowest429Ms + maxSendLagMs. */
  readonly uncertaintyMs: number;
  /** The slowest 429 round trip (send → answer), model ms; 0 without 429s. */
  readonly slowest429Ms: number;
  /** The largest send lag of the run, model ms. */
  readonly maxSendLagMs: number;
  /** The bucket replayed: its capacity (tokens) and refill (requests per minute). */
  readonly capacityTokens: number;
  readonly refillRpm: number;
}

/** Tokens in a full bucket: the burst above the refill over the burst minutes, plus the request at time 0. */
export function bucketCapacityTokens(limits: EnvelopeLimits): number {
  return Math.max(0, (limits.burstRpm - limits.sustainedRpm) * limits.burstMinutes) + 1;
}

/** The margin (tokens) for a timing uncertainty of `uncertaintyMs` (model ms). */
export function envelopeMarginTokens(limits: EnvelopeLimits, uncertaintyMs: number): number {
  return (limits.sustainedRpm / 60_000) * (uncertaintyMs + ENVELOPE_MARGIN.refillStepMs) + ENVELOPE_MARGIN.safetyTokens;
}

/** Judges every 429 of a run against the envelope (see the top of this file). */
export function envelopeFindings(plan: { readonly phases: readonly unknown[] }, attempts: EnvelopeAttempts, limits: EnvelopeLimits): EnvelopeJudgement {
  const capacity = bucketCapacityTokens(limits);
  const refillPerMs = limits.sustainedRpm / 60_000;
  const refused = attempts.refusedAttempts();
  // Typed arrays throughout: a run may hold millions of 429s.
  const order = Uint32Array.from(refused.sentAtMs, (_, i) => i).sort((a, b) => refused.sentAtMs[a]! - refused.sentAtMs[b]!);
  let slowest429Ms = 0;
  for (let i = 0; i < refused.sentAtMs.length; i++) slowest429Ms = Math.max(slowest429Ms, refused.endAtMs[i]! - refused.sentAtMs[i]!);
  const maxSendLagMs = Math.max(0, attempts.maxSendLagMs);
  const uncertaintyMs = slowest429Ms + maxSendLagMs;
  const marginTokens = envelopeMarginTokens(limits, uncertaintyMs);
  const counts = plan.phases.map(() => ({ http429: 0, findings: 0, edge: 0, maxTokensAt429: null as number | null }));

  const admitted = attempts.admittedSentAtMs();
  // The bucket after the admitted sends before `next`: `tokens` at `atMs` (full before the first).
  let next = 0;
  let tokens = capacity;
  let atMs = Number.NEGATIVE_INFINITY;
  const refill = (level: number, fromMs: number, toMs: number): number => (fromMs === Number.NEGATIVE_INFINITY ? capacity : Math.min(capacity, level + (toMs - fromMs) * refillPerMs));
  for (const j of order) {
    const sentAtMs = refused.sentAtMs[j]!;
    const endAtMs = refused.endAtMs[j]!;
    // Admitted sends at the same instant count first: the fewer tokens, the fewer findings.
    while (next < admitted.length && admitted[next]! <= sentAtMs) {
      tokens = refill(tokens, atMs, admitted[next]!) - 1;
      atMs = admitted[next++]!;
    }
    // The bucket only fills between admissions, so its least over [send, answer] is at the send or
    // just after an admission inside the window.
    let least = refill(tokens, atMs, sentAtMs);
    let level = tokens;
    let levelAtMs = atMs;
    for (let i = next; i < admitted.length && admitted[i]! <= endAtMs; i++) {
      level = refill(level, levelAtMs, admitted[i]!) - 1;
      levelAtMs = admitted[i]!;
      least = Math.min(least, level);
    }
    const phase = counts[refused.phase[j]!];
    if (phase === undefined) throw new RangeError(`a 429 for phase ${refused.phase[j]}, but the plan has ${counts.length}`);
    phase.http429++;
    phase.maxTokensAt429 = Math.max(phase.maxTokensAt429 ?? Number.NEGATIVE_INFINITY, least);
    if (least >= 1 + marginTokens) phase.findings++;
    else if (least >= 1) phase.edge++;
  }
  return {
    phases: counts.map((c) => ({ ...c, marginTokens })),
    marginTokens,
    uncertaintyMs,
    slowest429Ms,
    maxSendLagMs,
    capacityTokens: capacity,
    refillRpm: limits.sustainedRpm,
  };
}

/** The envelope check's reason for one phase. */
export function describeEnvelopePhase(p: EnvelopePhase): string {
  const margin = p.marginTokens.toFixed(1);
  const edge = p.edge === 0 ? '' : `; ${p.edge} at the edge (inside the envelope by less than the margin of ${margin} tokens: the timing cannot tell, so not a finding)`;
  if (p.findings === 0) return `${p.http429} 429s, none on a request the documented limits clearly allow${edge}`;
  const most = (p.maxTokensAt429 ?? 0).toFixed(1);
  return `${p.findings} 429s on requests the documented limits clearly allow (the bucket, replayed over the requests the service admitted, held up to ${most} tokens where 1 + a margin of ${margin} was enough): a finding against the service${edge}`;
}
