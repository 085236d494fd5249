/**
 * The traffic a plan can send, as the guard judges it: the plan's rate (not the noise of its
 * Poisson draws), phase by phase and ramps included, multiplied by the worst case of the retry
 * budget (with `on429: retry`, every arrival may be sent maxAttempts times). From it: the peak
 * rate and the longest stretch above (or at) a rate, across phase boundaries.
 */
import type { Plan } from '../plan/index.js';

/** The worst-case rate over one phase: linear from fromRpm to toRpm. Times are ms from the run start. */
export interface RateSegment {
  readonly phase: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
}

export interface Stretch {
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
  /** The phases the stretch overlaps, in order. */
  readonly phases: readonly string[];
}

/**
 * Rates are per minute, so a dip shorter than this does not end a stretch (and counts in it):
 * 4 minutes at 250 rpm, 30 seconds at 100, 4 minutes at 250 is one stretch of 8½ minutes.
 */
export const BRIDGED_DIP_MS = 60_000;

/** How many times each arrival may be sent in the worst case. */
export function worstCaseFactor(plan: Plan): number {
  const on429 = plan.scenario.on429;
  return on429.policy === 'retry' ? on429.maxAttempts : 1;
}

export function rateSegments(plan: Plan): RateSegment[] {
  const factor = worstCaseFactor(plan);
  return plan.phases.map((p) => ({ phase: p.name, startMs: p.startMs, endMs: p.startMs + p.durationMs, fromRpm: p.fromRpm * factor, toRpm: p.toRpm * factor }));
}

export function peakRpm(segments: readonly RateSegment[]): number {
  return segments.reduce((peak, s) => Math.max(peak, s.fromRpm, s.toRpm), 0);
}

/** The part of a linear segment where the rate is above `rpm` (or at or above, when `inclusive`). */
function partAbove(s: RateSegment, rpm: number, inclusive: boolean): [number, number] | undefined {
  const above = (r: number): boolean => (inclusive ? r >= rpm : r > rpm);
  if (s.fromRpm === s.toRpm) return above(s.fromRpm) ? [s.startMs, s.endMs] : undefined;
  // The crossing of a ramp, where the rate equals `rpm`.
  const cross = s.startMs + ((rpm - s.fromRpm) / (s.toRpm - s.fromRpm)) * (s.endMs - s.startMs);
  if (s.toRpm > s.fromRpm) return above(s.toRpm) ? [Math.max(s.startMs, cross), s.endMs] : undefined;
  return above(s.fromRpm) ? [s.startMs, Math.min(s.endMs, cross)] : undefined;
}

/** The longest stretch with the rate above `rpm` (at or above, when `inclusive`); dips shorter than BRIDGED_DIP_MS are bridged. */
export function longestStretch(segments: readonly RateSegment[], rpm: number, inclusive: boolean): Stretch | undefined {
  const merged: [number, number][] = [];
  for (const s of segments) {
    const part = partAbove(s, rpm, inclusive);
    if (part === undefined || part[1] <= part[0]) continue;
    const last = merged[merged.length - 1];
    if (last !== undefined && part[0] - last[1] < BRIDGED_DIP_MS) last[1] = part[1];
    else merged.push(part);
  }
  let best: [number, number] | undefined;
  for (const m of merged) if (best === undefined || m[1] - m[0] > best[1] - best[0]) best = m;
  if (best === undefined) return undefined;
  const [startMs, endMs] = best;
  // Whole milliseconds: a ramp crossing computed in floating point must not turn "exactly 5 minutes" into "more".
  const durationMs = Math.round(endMs - startMs);
  return { startMs, endMs, durationMs, phases: segments.filter((s) => s.endMs > startMs && s.startMs < endMs).map((s) => s.phase) };
}
