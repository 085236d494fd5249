/** Draws the fault (if any) injected into one response, from a seeded Rng. */
import type { Rng } from '../core/index.js';
import type { FaultRates } from './profiles.js';

export type Fault = 'none' | 'reset' | 'http500' | 'malformed' | 'slow';

/** One uniform draw against the cumulative rates, so faults are exclusive and repeatable. */
export function drawFault(rates: FaultRates, rng: Rng): Fault {
  const u = rng.next();
  let edge = rates.resetRate;
  if (u < edge) return 'reset';
  edge += rates.http500Rate;
  if (u < edge) return 'http500';
  edge += rates.malformedRate;
  if (u < edge) return 'malformed';
  edge += rates.slowRate;
  if (u < edge) return 'slow';
  return 'none';
}
