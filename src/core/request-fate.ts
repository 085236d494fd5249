/**
 * A planned request's fate, in one vocabulary from the client that meets it to the judge that counts it:
 * every request sent ends in exactly one outcome, so counts add up:
 *   sent = ok + http_429 + http_504 + http_other + timeout + reset + refused + malformed + too_large + error +
 * abandoned + stale_connection
 *   planned = sent + dropped (the engine found maxInFlight requests outstanding) + unsent (never on the wire).
 * What each outcome means is said where it is decided (src/client/classify.ts, src/engine/run-plan.ts).
 */

/** Outcomes of requests that were sent. */
export const SENT_OUTCOMES = [
  'ok',
  'http_429',
  'http_504',
  'http_other',
  'timeout',
  'reset',
  'refused',
  'malformed',
  'too_large',
  'error',
  'abandoned',
  // The client's, not the service's: a kept-alive connection the server had closed while idle (src/client/classify.ts).
  'stale_connection',
] as const;
export type Outcome = (typeof SENT_OUTCOMES)[number];

/** Every outcome a planned request may have: those of requests sent, plus dropped and unsent. */
export const COUNTED_OUTCOMES = [...SENT_OUTCOMES, 'dropped', 'unsent'] as const;
export type CountedOutcome = (typeof COUNTED_OUTCOMES)[number];
