/**
 * The one definition of latency every figure of a run uses (tables, summary.json, charts, the terminal, the checks):
 * model ms from the intended send to the end of the answer, of every request except those answered 429 at once; a
 * request dropped, left unanswered or lost to a stale connection counts at UNANSWERED_MS (worse than any target).
 * A 429 at once comes back fast: counting it would flatter a rate-limited service (429s are judged by their own check);
 * a request whose retries all ended in 429 counts, at its end-to-end time: it cost its client every wait. Failed
 * answers (500, reset, timeout) count at their cost to the client: the time until the client knew.
 */
import { type CountedOutcome, UNANSWERED_MS } from '../core/index.js';
import type { RecordableEvent } from './event.js';

/** The same words in every report, chart and summary.json's `latencyDefinition`. */
export const LATENCY_DEFINITION =
  'latency: model ms from the intended send to the end of the answer, of every request except those answered 429 at once (their round trips are shown apart); dropped and unanswered requests count as worse than any target';

/** Where one request's times go: into the latency, into the 429s' own round trips, or nowhere. */
type LatencyKind = 'latency' | 'unanswered' | 'http429' | 'none';

/**
 * The definition's rule for one request, from its fate: `answered` says it was sent and its last attempt ended. Every
 * figure of latency (the recorder, the live progress, the live metrics) sorts requests with this function.
 */
export function latencyKind(outcome: CountedOutcome, attempts: number, answered: boolean): LatencyKind {
  if (outcome === 'dropped' || outcome === 'abandoned' || outcome === 'stale_connection') return 'unanswered';
  // Unsent requests never left: the run stopped first.
  if (outcome === 'unsent' || !answered) return 'none';
  return outcome === 'http_429' && attempts <= 1 ? 'http429' : 'latency';
}

/** Where one event's times go, with those times. */
export type LatencyShare =
  | { readonly kind: 'latency'; readonly latencyMs: number; readonly serviceMs: number }
  | { readonly kind: 'http429'; readonly latencyMs: number; readonly serviceMs: number }
  | { readonly kind: 'none' };

const NONE: LatencyShare = { kind: 'none' };

export function latencyShare(event: RecordableEvent): LatencyShare {
  const r = event.result;
  const answered = event.firedAtMs !== undefined && r !== undefined;
  const kind = latencyKind(event.outcome, r?.attempts ?? 0, answered);
  if (kind === 'unanswered') return { kind: 'latency', latencyMs: UNANSWERED_MS, serviceMs: UNANSWERED_MS };
  if (kind === 'none' || r === undefined) return NONE;
  const latencyMs = r.latencyMs ?? r.endAtMs - (event.readyAtMs ?? event.intendedAtMs);
  const serviceMs = r.serviceMs ?? r.endAtMs - r.lastSentAtMs;
  return { kind, latencyMs, serviceMs };
}
