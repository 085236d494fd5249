/**
 * The stall profile's windows: when a response ready inside one leaves, and the true latency a client
 * must see because of them.
 */

/**
 * Windows during which no response leaves the server: window k spans
 * [offsetMs + k·periodMs, offsetMs + k·periodMs + durationMs) on the model clock (0 = server start).
 * A response ready inside a window is held until the window ends.
 */
export interface StallWindows {
  readonly periodMs: number;
  readonly durationMs: number;
  readonly offsetMs: number;
}

/** When a response ready at `readyMs` may leave, given the stall windows. */
export function releaseTimeMs(readyMs: number, stall: StallWindows | null): number {
  if (stall === null) return readyMs;
  const phase = (((readyMs - stall.offsetMs) % stall.periodMs) + stall.periodMs) % stall.periodMs;
  return phase < stall.durationMs ? readyMs + (stall.durationMs - phase) : readyMs;
}

/**
 * The true latency (model ms) of a request that arrived at `arrivedAtMs` on the mock's clock and took
 * `serviceMs` in service, given the stall windows: what a client sending it then must see, stalls and
 * all. The coordinated-omission test and bench compute their truth with it.
 */
export function stallTruthMs(arrivedAtMs: number, serviceMs: number, stall: StallWindows | null): number {
  return releaseTimeMs(arrivedAtMs + serviceMs, stall) - arrivedAtMs;
}
