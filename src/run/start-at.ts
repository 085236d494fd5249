/** `run --start-at`: how late and how far ahead a common start may be. */
import { TimeScale, UsageError } from '../core/index.js';

/**
 * How late a start may be and still run, in model ms: its lateness is send lag; later, the first arrivals
 * would go out in one burst. At time scale k that is 1 s ÷ k of wall time: the burst is what k scales.
 */
const START_AT_LATE_MS = 1000;

/** START_AT_LATE_MS in wall ms at time scale `scale`. */
export const lateLimitWallMs = (scale: TimeScale): number => scale.toWallMs(START_AT_LATE_MS);
/** How far ahead a start may be: a process waiting longer than this is more likely forgotten than planned. */
const START_AT_AHEAD_MS = 24 * 3_600_000;

/**
 * `--start-at` (epoch ms) checked against now: not past by more than START_AT_LATE_MS, not beyond START_AT_AHEAD_MS.
 */
export function checkStartAt(startAtMs: number | undefined, nowMs: number, scale: TimeScale = TimeScale.REAL): number {
  if (startAtMs === undefined) return nowMs;
  if (startAtMs < nowMs - lateLimitWallMs(scale)) {
    throw new UsageError(
      `--start-at ${new Date(startAtMs).toISOString()}: ${((nowMs - startAtMs) / 1000).toFixed(1)} s in the past`,
      `a start more than 1 s of model time late (${lateLimitWallMs(scale)} ms of wall time at time scale ${scale.k}) would send the overdue arrivals in one burst; give every shard a new --start-at; nothing was sent`,
    );
  }
  if (startAtMs > nowMs + START_AT_AHEAD_MS) {
    throw new UsageError(
      `--start-at ${new Date(startAtMs).toISOString()}: more than 24 hours ahead`,
      'start the run closer to its time; nothing was sent',
    );
  }
  return startAtMs;
}
