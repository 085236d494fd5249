/**
 * Which planned arrivals are inside the documented rate-limit envelope: those a token bucket with
 * the spec's limits (refill at the sustained rate, room for the burst rate over the burst minutes,
 * the same arithmetic the spec implies) would admit, replayed over the plan from full. A 429 on such
 * a request is a finding against the service; outside it, 429s are expected. Written here on its own,
 * not borrowed from the mock, so the harness never trusts the mock's implementation.
 */
import { IDENTIFICATION_LIMITS } from '../spec/index.js';
import type { Plan } from './build-plan.js';

export interface EnvelopeLimits {
  readonly sustainedRpm: number;
  readonly burstRpm: number;
  readonly burstMinutes: number;
}

export const DOCUMENTED_ENVELOPE: EnvelopeLimits = {
  sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
  burstRpm: IDENTIFICATION_LIMITS.burstRpm,
  burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
};

/** One flag per planned arrival, in plan order: true when inside the envelope. */
export function envelopeFlags(plan: Plan, limits: EnvelopeLimits = DOCUMENTED_ENVELOPE): Uint8Array {
  const capacity = Math.max(0, (limits.burstRpm - limits.sustainedRpm) * limits.burstMinutes) + 1;
  const refillPerMs = limits.sustainedRpm / 60_000;
  const flags = new Uint8Array(plan.arrivals);
  let tokens = capacity;
  let lastMs = 0;
  let seq = 0;
  for (const phase of plan.phases) {
    for (const t of phase.arrivalsMs) {
      tokens = Math.min(capacity, tokens + (t - lastMs) * refillPerMs);
      lastMs = t;
      if (tokens >= 1 - 1e-9) {
        tokens -= 1;
        flags[seq] = 1;
      }
      seq++;
    }
  }
  return flags;
}
