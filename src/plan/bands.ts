/**
 * The spec's latency targets depend on the load at the time: ≤ 100 rpm → 2.5 s, ≤ 200 → 4 s,
 * ≤ 300 → 5 s. A phase's arrivals are judged against the band of the rate *at their intended time*,
 * not against its mean rate: a 100→300 rpm ramp has 62.5 % of its arrivals above 200 rpm (5 s), and
 * a 60→160 ramp 29 % at or below 100 rpm (2.5 s); judged by its mean rate (200 and 110 rpm), each
 * would be held to the wrong target for much of its traffic. A ramp is linear, so each band holds
 * one contiguous stretch of it: a phase splits into at most four band slices, in time order.
 */
import { type LatencyBand, latencyBandFor } from '../spec/index.js';

/** The stretch of a phase whose arrivals fall in one band. */
export interface BandSlice {
  /** The spec's band, or undefined above 300 rpm (no documented target). */
  readonly band: LatencyBand | undefined;
  /** Offered rate at the stretch's start and end (rpm). */
  readonly fromRpm: number;
  readonly toRpm: number;
  /** The stretch's intended times, model ms from the run start: [startMs, endMs). */
  readonly startMs: number;
  readonly endMs: number;
  /** Planned arrivals in the stretch, and those after the phase's warm-up (what the verdict judges). */
  readonly arrivals: number;
  readonly steadyArrivals: number;
}

interface RampShape {
  readonly startMs: number;
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
}

/** The offered rate (rpm) at intended time `tMs` of a linear phase. */
export function rateAt(phase: RampShape, tMs: number): number {
  if (phase.fromRpm === phase.toRpm) return phase.fromRpm;
  const f = Math.min(1, Math.max(0, (tMs - phase.startMs) / phase.durationMs));
  return phase.fromRpm + (phase.toRpm - phase.fromRpm) * f;
}

/** The band of the offered rate at `tMs`. */
function bandAt(phase: RampShape, tMs: number): LatencyBand | undefined {
  return latencyBandFor(rateAt(phase, tMs));
}

/** Splits a phase into its band slices, counting each arrival in the band of the rate at its time. */
export function bandSlices(phase: RampShape & { readonly warmupMs: number }, arrivalsMs: Float64Array): BandSlice[] {
  const endMs = phase.startMs + phase.durationMs;
  const steadyFromMs = phase.startMs + phase.warmupMs;
  // Where the rate crosses a band's upper edge (100, 200, 300 rpm) inside the phase.
  const lo = Math.min(phase.fromRpm, phase.toRpm);
  const hi = Math.max(phase.fromRpm, phase.toRpm);
  const cuts = [100, 200, 300]
    .filter((edge) => edge > lo && edge < hi)
    .map((edge) => phase.startMs + (phase.durationMs * (edge - phase.fromRpm)) / (phase.toRpm - phase.fromRpm))
    .sort((a, b) => a - b);
  const edges = [phase.startMs, ...cuts, endMs];
  const slices = edges.slice(0, -1).map((startMs, i) => {
    const sliceEnd = edges[i + 1]!;
    return {
      band: bandAt(phase, (startMs + sliceEnd) / 2),
      fromRpm: rateAt(phase, startMs),
      toRpm: rateAt(phase, sliceEnd),
      startMs,
      endMs: sliceEnd,
      arrivals: 0,
      steadyArrivals: 0,
    };
  });
  for (const t of arrivalsMs) {
    const slice = slices[sliceIndexAt(slices, t)]!;
    slice.arrivals++;
    if (t >= steadyFromMs) slice.steadyArrivals++;
  }
  return slices;
}

/**
 * The band slice an arrival at intended time `tMs` belongs to: the stretch that holds it. An arrival
 * exactly on an edge between two bands has the edge's rate (100, 200 or 300 rpm), which the spec puts in
 * the lower band ("up to 100", "100 to 200"): on a rising ramp that is the stretch the edge ends, on a
 * falling one the stretch it starts. The last stretch keeps the phase's end.
 */
export function sliceIndexAt(
  slices: readonly Pick<BandSlice, 'startMs' | 'endMs' | 'fromRpm' | 'toRpm'>[],
  tMs: number,
): number {
  let i = 0;
  while (i < slices.length - 1 && (tMs > slices[i]!.endMs || (tMs === slices[i]!.endMs && !endsInclusive(slices[i]!))))
    i++;
  return i;
}

/** Whether a stretch keeps an arrival exactly at its end: on a rising ramp, whose end is its band's upper edge. */
export function endsInclusive(slice: Pick<BandSlice, 'fromRpm' | 'toRpm'>): boolean {
  return slice.toRpm > slice.fromRpm;
}
