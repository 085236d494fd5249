/**
 * How far the embedded mock itself fell behind: its own event loop's delay (wall ms), read in its thread.
 * A request the mock reads later than its model's lag window enters the model late (src/mock/model-clock.ts):
 * a starved mock bunches arrivals in model time, and the queue that builds shows as the service's latency,
 * k times the wall delay. So what the delay could have added is its excess over the window, × k, in model ms.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The mock's lag as run.json and summary.json record it. */
export interface MockLag {
  /** The event loop's delay, p99 and max (wall ms, the monitor's resolution taken off). */
  readonly p99WallMs: number;
  readonly maxWallMs: number;
  /** The model's lag window (wall ms): a delay within it does not change the model's course. */
  readonly windowWallMs: number;
  /** The most model time the delay could have added to a request's latency: (max − window) × k, at least 0. */
  readonly modelMs: number;
}

/** Finer than the lag window, so that a delay that outlasts it shows. */
const RESOLUTION_MS = 10;

/** The lag from the loop's delays (wall ms) at time scale `k`. */
export function mockLagOf(p99WallMs: number, maxWallMs: number, windowWallMs: number, k: number): MockLag {
  return { p99WallMs, maxWallMs, windowWallMs, modelMs: Math.max(0, maxWallMs - windowWallMs) * k };
}

/** Watches the loop of the thread it runs in; `read()` says the lag since the last read, and starts again. */
export class LoopLag {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor(
    private readonly timeScale: number,
    private readonly windowWallMs: number,
  ) {
    this.histogram.enable();
  }

  read(): MockLag {
    const h = this.histogram;
    // The monitor records the gap between its wake-ups, which includes its own resolution: take it off.
    const wallMs = (ns: number): number => (h.count > 0 ? Math.max(0, ns / 1e6 - RESOLUTION_MS) : 0);
    const lag = mockLagOf(wallMs(h.percentile(99)), wallMs(h.max), this.windowWallMs, this.timeScale);
    h.reset();
    return lag;
  }

  stop(): void {
    this.histogram.disable();
  }
}
