/**
 * When each request is due. The plan is one arrival process whose rate is piecewise linear: within
 * a phase it ramps linearly from `fromRpm` to `toRpm`, and the phase's expected number of arrivals
 * by time t is
 *   Λ(t) = (fromRpm·t + (toRpm − fromRpm)·t² / (2·D)) / 60 000      (t, D in ms)
 * The plan's expected count runs on across phase boundaries: constant arrivals are due where the
 * plan's count reaches 0, 1, 2, …; Poisson arrivals where it reaches the running sum of unit-mean
 * exponential draws (a non-homogeneous Poisson process by time change), the sum carried from phase
 * to phase. So a phase fires an arrival at its start only when one is due there: 200 phases of
 * 100 ms at 1 rpm plan the one request that 20 s at 1 rpm plan, not 200.
 */
import { nextExponential, type Rng } from '../core/index.js';

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
 * How the process enters its first phase: the expected count until its first arrival (0 for constant: one at the
 * start).
 */
function firstDue(process: ArrivalProcess, rng: Rng): number {
  return process === 'constant' ? 0 : nextExponential(rng, 1);
}

/** One phase of the process: its arrival offsets, and where the process stands when the phase ends. */
interface PhaseArrivals {
  /** Arrival offsets (ms from the phase start), ascending. */
  readonly offsetsMs: Float64Array;
  /** The expected count still to go, at the phase end, until the next arrival is due (≥ 0). */
  readonly dueIn: number;
}

/**
 * The arrivals of one phase, entered with `dueIn` expected arrivals to go until the next one is due
 * (firstDue for the first phase, the previous phase's dueIn after that); at most `maxArrivals` of
 * them, so that no draw of a Poisson process can make the loop outgrow the plan's bound.
 */
export function phaseArrivals(
  shape: RateShape,
  process: ArrivalProcess,
  rng: Rng,
  dueIn: number,
  maxArrivals = Number.POSITIVE_INFINITY,
): PhaseArrivals {
  const out: number[] = [];
  const expected = expectedArrivals(shape, shape.durationMs);
  // Compare in count space, not time: Λ(D) may be a whole number (100 → 300 rpm over 2 min is
  // exactly 400), and the inverse of that count can land a rounding error before D. An arrival
  // within that tolerance of the end is due at the next phase's start instead.
  const total = expected - 1e-9;
  let count = dueIn;
  while (count < total && out.length < maxArrivals) {
    // Rounded to the microsecond (the recording resolution) so that 600 ms spacing is exactly 600.
    out.push(Math.min(Math.round(timeOfArrival(shape, count) * 1000) / 1000, shape.durationMs));
    count += process === 'constant' ? 1 : nextExponential(rng, 1);
  }
  return { offsetsMs: Float64Array.from(out), dueIn: Math.max(0, count - expected) };
}

/** Arrival offsets of each phase (ms from its start), for phases laid end to end; at most `maxArrivals` in all. */
export function planArrivals(
  shapes: readonly RateShape[],
  process: ArrivalProcess,
  rng: Rng,
  maxArrivals = Number.POSITIVE_INFINITY,
): Float64Array[] {
  let dueIn = firstDue(process, rng);
  let left = maxArrivals;
  return shapes.map((shape) => {
    const phase = phaseArrivals(shape, process, rng, dueIn, left);
    dueIn = phase.dueIn;
    left -= phase.offsetsMs.length;
    return phase.offsetsMs;
  });
}
