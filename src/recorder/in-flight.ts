/**
 * Requests in flight over a run, from the client's side: an attempt is in flight from its send to its
 * answer (or to when the client gave up on it). Per timeline window, the most in flight at any moment
 * and the time-weighted mean, for the chart of requests in flight. One sweep over the sorted send
 * and end times: O(n log n), typed arrays.
 */

interface InFlightWindows {
  /** Per window, the most attempts in flight at any moment of it (including those carried in from before). */
  readonly max: Uint32Array;
  /** Per window, the mean in flight over its time (∫ in flight dt ÷ window length). */
  readonly mean: Float64Array;
}

/**
 * In flight per window of `windowMs`, over `windows` windows from 0. `sentAtMs` and `endAtMs` hold the
 * attempts' send and end times, each sorted ascending on its own (every end ≥ its send). An attempt
 * that ends at t is no longer in flight at t: ends at an instant count before sends at it.
 */
export function inFlightByWindow(
  sentAtMs: Float64Array,
  endAtMs: Float64Array,
  windowMs: number,
  windows: number,
): InFlightWindows {
  if (sentAtMs.length !== endAtMs.length) throw new RangeError(`${sentAtMs.length} sends but ${endAtMs.length} ends`);
  const max = new Uint32Array(windows);
  const area = new Float64Array(windows);
  let count = 0;
  let at = 0;
  let s = 0;
  let e = 0;
  /** Adds `count` over [at, until) to the windows it spans, and carries the count into their max. */
  const advance = (until: number): void => {
    while (at < until) {
      const w = Math.floor(at / windowMs);
      if (w >= windows) return;
      const edge = Math.min(until, (w + 1) * windowMs);
      if (w >= 0) {
        area[w]! += count * (edge - at);
        if (count > max[w]!) max[w] = count;
      }
      at = edge;
    }
  };
  while (s < sentAtMs.length || e < endAtMs.length) {
    const nextSend = s < sentAtMs.length ? sentAtMs[s]! : Number.POSITIVE_INFINITY;
    const nextEnd = e < endAtMs.length ? endAtMs[e]! : Number.POSITIVE_INFINITY;
    const t = Math.min(nextSend, nextEnd);
    advance(t);
    at = Math.max(at, t);
    if (nextEnd <= nextSend) {
      count--;
      e++;
    } else {
      count++;
      s++;
      const w = Math.floor(t / windowMs);
      if (w >= 0 && w < windows && count > max[w]!) max[w] = count;
    }
  }
  advance(windows * windowMs);
  const mean = area.map((a) => a / windowMs);
  return { max, mean };
}
