/** The latency that stands for no answer at all, and how to recognise it read back from a histogram. */

/**
 * The latency recorded for a request that got no answer — dropped at maxInFlight, or cancelled
 * unanswered — so that it counts in the judged sample as worse than any target: 1e9 ms (11.6 days),
 * far above any threshold (at most 24 h) and any request's life (timeouts and retries end it within 12 h).
 */
export const UNANSWERED_MS = 1e9;

/** A value read back from a histogram at the rank of an unanswered request (HDR keeps 3 significant digits). */
export function isUnanswered(ms: number): boolean {
  return ms >= UNANSWERED_MS / 2;
}
