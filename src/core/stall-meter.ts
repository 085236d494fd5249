/**
 * How long a thread's event loop was held up, summed (wall ms): a ticker that counts each tick's lateness beyond a
 * small tolerance — a long GC, a busy turn, the whole process not scheduled on a busy machine. Kept in two cells of
 * shared memory (the total so far, the last tick's time), so that another thread reads it too, and sees a stall
 * that is still going on: the run's client reads its own loop's and the embedded mock's
 * (src/client/http1/deadlines.ts).
 */
import { monotonicMs } from './clock.js';

/** The cells a meter writes and any thread may read: [stalled wall ms so far, last tick's monotonicMs (or NaN)]. */
export type StallCells = Float64Array;

/** How often the loop is looked at (wall ms). */
export const STALL_TICK_MS = 10;
/** Lateness of a tick counted as none: timers are routinely a millisecond or two late (wall ms). */
export const STALL_TOLERANCE_MS = 2;

/** Two cells shared between threads (a SharedArrayBuffer can be posted to a worker). */
export function newStallCells(): StallCells {
  const cells = new Float64Array(new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT));
  cells[1] = Number.NaN;
  return cells;
}

/** The wall ms the meter of `cells` has seen its loop stalled so far, counting a stall still going on at `nowMs`. */
export function stalledMs(cells: StallCells, nowMs: number = monotonicMs()): number {
  const late = nowMs - cells[1]! - STALL_TICK_MS - STALL_TOLERANCE_MS;
  // NaN (not ticking) compares false: nothing going on.
  return cells[0]! + (late > 0 ? late : 0);
}

/** Ticks on the loop of the thread that starts it. */
export class StallMeter {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly cells: StallCells = newStallCells(),
    private readonly now: () => number = monotonicMs,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.cells[1] = this.now();
    this.timer = setInterval(() => this.tick(this.now()), STALL_TICK_MS);
    // A meter never keeps a process alive.
    this.timer.unref();
  }

  /** A tick at `nowMs`: its lateness beyond the tolerance is added to the total. */
  tick(nowMs: number): void {
    const late = nowMs - this.cells[1]! - STALL_TICK_MS - STALL_TOLERANCE_MS;
    if (late > 0) this.cells[0] = this.cells[0]! + late;
    this.cells[1] = nowMs;
  }

  /** Stops ticking; what it counted stays readable. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.cells[1] = Number.NaN;
  }
}
