/**
 * The time scale k (`--time-scale` of run, plan and mock): model time = k × wall time. Below 1 a run
 * would take longer than real time (1e-300 makes every wait astronomical); above 1000 timer
 * resolution (about 1 ms of wall time, k ms of model time) swamps the latencies measured.
 */
import { UsageError } from './errors.js';

/** The range of k, inclusive. */
export const TIME_SCALE = { min: 1, max: 1000 } as const;

/** `k` when it is a finite number in {@link TIME_SCALE}; otherwise a UsageError naming the flag, the range and the value. */
export function checkTimeScale(k: number): number {
  if (!(k >= TIME_SCALE.min && k <= TIME_SCALE.max)) {
    throw new UsageError(`--time-scale: expected a number from ${TIME_SCALE.min} to ${TIME_SCALE.max}, got ${String(k)}`);
  }
  return k;
}
