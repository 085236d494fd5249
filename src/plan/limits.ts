/** The limits a plan is judged against: the spec's documented ones, or those support raised (scenario `limits`). */
import type { Scenario } from '../scenario/index.js';
import { type EnvelopeLimits, IDENTIFICATION_LIMITS } from '../spec/index.js';

export interface EffectiveLimits extends EnvelopeLimits {
  /** The highest rate allowed at all. */
  readonly spikeRpm: number;
  /** How long the plan may stay at (or above) spikeRpm. */
  readonly spikeMinutes: number;
  readonly maxInFlight: number;
  /** The support reference that raised them; null for the documented limits. */
  readonly reference: string | null;
}

export const DOCUMENTED_LIMITS: EffectiveLimits = {
  sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
  burstRpm: IDENTIFICATION_LIMITS.burstRpm,
  burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
  spikeRpm: IDENTIFICATION_LIMITS.spikeRpm,
  spikeMinutes: IDENTIFICATION_LIMITS.spikeMaxMinutes,
  maxInFlight: IDENTIFICATION_LIMITS.maxInFlight,
  reference: null,
};

/** The documented limits, with every limit the scenario declares as raised put in its place. */
export function effectiveLimits(scenario: Scenario): EffectiveLimits {
  const raised = scenario.limits;
  if (raised === undefined) return DOCUMENTED_LIMITS;
  return {
    sustainedRpm: raised.sustainedRpm ?? DOCUMENTED_LIMITS.sustainedRpm,
    burstRpm: raised.burstRpm ?? DOCUMENTED_LIMITS.burstRpm,
    burstMinutes: raised.burstMinutes ?? DOCUMENTED_LIMITS.burstMinutes,
    spikeRpm: raised.spikeRpm ?? DOCUMENTED_LIMITS.spikeRpm,
    spikeMinutes: raised.spikeMinutes ?? DOCUMENTED_LIMITS.spikeMinutes,
    maxInFlight: raised.maxInFlight ?? DOCUMENTED_LIMITS.maxInFlight,
    reference: raised.reference,
  };
}
