/**
 * When each request of a phase is due, in ms from the phase start. The rate may ramp linearly
 * from `fromRpm` to `toRpm`; the expected number of arrivals by time t is
 *   Λ(t) = (fromRpm·t + (toRpm − fromRpm)·t² / (2·D)) / 60 000      (t, D in ms)
 * Constant arrivals are due where Λ(t) = 0, 1, 2, …; Poisson arrivals where Λ(t) equals the
 * running sum of unit-mean exponential draws (a non-homogeneous Poisson process by time change).
 * Either way only arrivals strictly before the phase end (Λ(t) < Λ(D)) are kept.
 */
import { type Rng, nextExponential } from '../core/rng.js';

export type ArrivalProcess = 'constant' | 'poisson';

export interface RateShape {
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
}

/** Expected arrivals in [0, t). */
export function expectedArrivals(shape: RateShape, tMs: number): number {
  const slope = (shape.toRpm - shape.fromRpm) / shape.durationMs;
  return (shape.fromRpm * tMs + (slope * tMs * tMs) / 2) / 60_000;
}

/** The time at which Λ reaches `count` (the inverse of expectedArrivals), in a form stable for flat rates. */
export function timeOfArrival(shape: RateShape, count: number): number {
  const a = (shape.toRpm - shape.fromRpm) / (2 * shape.durationMs * 60_000);
  const b = shape.fromRpm / 60_000;
  if (count === 0) return 0;
  const discriminant = b * b + 4 * a * count;
  if (discriminant < 0) return Number.POSITIVE_INFINITY; // a ramp down that never gets there
  return (2 * count) / (b + Math.sqrt(discriminant));
}

/**
 * Arrival offsets (ms from the phase start), ascending; at most `maxArrivals` of them, so that no
 * draw of a Poisson process can make the loop outgrow the plan's bound.
 */
export function phaseArrivals(shape: RateShape, process: ArrivalProcess, rng: Rng, maxArrivals = Number.POSITIVE_INFINITY): Float64Array {
  const out: number[] = [];
  // Compare in count space, not time: Λ(D) may be a whole number (100 → 300 rpm over 2 min is
  // exactly 400), and the inverse of that count can land a rounding error before D.
  const total = expectedArrivals(shape, shape.durationMs) - 1e-9;
  let count = process === 'constant' ? 0 : nextExponential(rng, 1);
  while (count < total && out.length < maxArrivals) {
    // Rounded to the microsecond (the recording resolution) so that 600 ms spacing is exactly 600.
    out.push(Math.min(Math.round(timeOfArrival(shape, count) * 1000) / 1000, shape.durationMs));
    count += process === 'constant' ? 1 : nextExponential(rng, 1);
  }
  return Float64Array.from(out);
}
