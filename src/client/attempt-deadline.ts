/**
 * An attempt's deadline: how long it waits for its answer (wall time), and its model time when judged on the mock's
 * Server-Timing.
 */
import { TimeScale } from '../core/index.js';
import type { WallDeadline } from './http1/pool.js';

/**
 * How long an attempt waits for its answer, wall ms. At k = 1 (or without the mock's Server-Timing) it is
 * the timeout ÷ k. At k > 1 against the mock the timeout is judged on the attempt's model time — its time
 * in the service (Server-Timing) plus the wall time outside it, counted once, as src/judge/accounting.ts
 * counts latency — so the client waits up to OVERHEAD_ALLOWANCE_WALL_MS longer: a machine that stalls for
 * a moment (another process on the core, a long GC) does not turn a prompt answer into a timeout, which
 * at k = 60 (a 250 ms wall deadline for 15 s) it did.
 */
export function attemptWallDeadlineMs(timeoutMs: number, timeScale: number, judgedOnModelTime: boolean): number {
  const scaled = TimeScale.of(timeScale).toWallMs(timeoutMs);
  return judgedOnModelTime ? scaled + Math.min(OVERHEAD_ALLOWANCE_WALL_MS, timeoutMs - scaled) : scaled;
}

/** Wall time granted beyond timeout ÷ k for overheads at k > 1 (ms): longer stalls show as the generator's lag. */
const OVERHEAD_ALLOWANCE_WALL_MS = 1000;

/**
 * An attempt's wall deadline as the pool keeps it: at k > 1 against the mock it is stretched by the tool's own stalls
 * while it waits (its loop's, the embedded mock's thread's: src/client/http1/deadlines.ts), up to the timeout itself
 * in wall ms. An attempt's model time is at least its wall time (the service's part counts k times, the rest once),
 * so an answer later than that is a timeout whatever held it; one sooner is judged on its model time when it comes.
 * Without the stretch, a stall of the mock's thread on a busy machine (over a second, beside a CPU hog) timed out
 * answers the service gave promptly, and a run at k = 60 stopped as TARGET_UNREACHABLE.
 */
export function attemptWallDeadline(timeoutMs: number, timeScale: number, judgedOnModelTime: boolean): WallDeadline {
  const waitMs = attemptWallDeadlineMs(timeoutMs, timeScale, judgedOnModelTime);
  return judgedOnModelTime && timeoutMs > waitMs ? { waitMs, latestMs: timeoutMs } : { waitMs };
}

/**
 * An attempt's model time: its service time (Server-Timing) plus the rest of its raw time counted once; without svc,
 * the raw time.
 */
export function attemptModelMs(rawMs: number, serviceMs: number | undefined, scale: TimeScale): number {
  return serviceMs === undefined ? rawMs : serviceMs + scale.toWallMs(rawMs - serviceMs);
}
