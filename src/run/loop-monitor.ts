/**
 * How often the event-loop monitor samples a run (wall ms). Node's monitor records the gap between its
 * timer's wake-ups, so a stall shorter than the interval shows only when a wake-up falls due inside it,
 * and then only in part: the finer the interval, the truer its p99 and max, which the verdict uses to
 * bound how late an answer may have been read. Each sample is a wake-up, though, and an idle process
 * pays for every one (about 165 µs of CPU each on this project's machines: at 50 ms, a third of the generator's 1 % CPU
 * budget between sparse arrivals). A run whose arrivals keep the loop awake anyway samples
 * finely; a sparse one coarsely, where send lag still catches every stall that delays a send.
 */

/** The interval of a run whose arrivals come at least every {@link DENSE_INTERVAL_MS} on average. */
export const DENSE_INTERVAL_MS = 20;
/** The interval of a sparser run. */
export const SPARSE_INTERVAL_MS = 200;

/** The interval for a plan of `arrivals` over `wallDurationMs` of wall time. */
export function loopMonitorIntervalMs(arrivals: number, wallDurationMs: number): number {
  return arrivals > 0 && wallDurationMs / arrivals <= DENSE_INTERVAL_MS ? DENSE_INTERVAL_MS : SPARSE_INTERVAL_MS;
}
