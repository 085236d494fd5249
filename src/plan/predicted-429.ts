/**
 * When the plan should meet its first 429, and about how many: the documented token bucket (refill at
 * sustainedRpm, capacity (burstRpm − sustainedRpm) × burstMinutes + 1) replayed over the planned first attempts,
 * assuming it is full at the start: the client sent nothing for as long as the bucket takes to refill. The
 * envelope check judges a run's 429s so only when that is known (its own mock, or --idle-before); the words say
 * the assumption. A refused arrival takes no token. Retries come on top and are not counted; neither is the in-
 * flight limit, which depends on the service's latency. So `plan` can tell, before anything is sent, whether a
 * scenario is meant to probe the limit or to stay under it.
 */
import { bucketCapacityTokens, type EnvelopeLimits, envelopeMarginTokens } from '../spec/index.js';
import type { Plan } from './build-plan.js';

export interface Predicted429 {
  readonly phase: string;
  readonly planned: number;
  /** First attempts the bucket has no token for. */
  readonly refused: number;
  /**
   * First attempts it admits with less than 1 + the envelope's margin tokens: a 429 there would be at the edge, never a
   * finding.
   */
  readonly edge: number;
  /** Of `refused`, those intended after the phase's warm-up: answers missing from the steady latency sample. */
  readonly steadyRefused: number;
  /** When the first is expected (model ms from the run start), or null when none is. */
  readonly firstAtMs: number | null;
}

export function predict429s(plan: Plan, limits: EnvelopeLimits): Predicted429[] {
  const capacity = bucketCapacityTokens(limits);
  const margin = envelopeMarginTokens(limits);
  const refillPerMs = limits.sustainedRpm / 60_000;
  let tokens = capacity;
  let lastMs = 0;
  return plan.phases.map((phase) => {
    let refused = 0;
    let steadyRefused = 0;
    let edge = 0;
    const steadyFromMs = phase.startMs + phase.warmupMs;
    let firstAtMs: number | null = null;
    for (const t of phase.arrivalsMs) {
      tokens = Math.min(capacity, tokens + (t - lastMs) * refillPerMs);
      lastMs = t;
      if (tokens >= 1) {
        if (tokens < 1 + margin) edge++;
        tokens -= 1;
      } else {
        refused++;
        if (t >= steadyFromMs) steadyRefused++;
        firstAtMs ??= t;
      }
    }
    return { phase: phase.name, planned: phase.arrivalsMs.length, refused, steadyRefused, edge, firstAtMs };
  });
}
