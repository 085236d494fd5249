/**
 * The latency definition (src/recorder/latency-definition.ts) read from a line of events.ndjson: what the live
 * progress and the live metrics count, so that they count what the recorder and every report count.
 */
import { UNANSWERED_MS } from '../core/index.js';
import { latencyKind } from '../recorder/index.js';
import type { EventRecord } from './events.js';

/**
 * A request's latency as the definition counts it (model ms; UNANSWERED_MS for no answer), or undefined when it is
 * left out (a 429 at once, a request never sent).
 */
export function countedLatencyMs(record: EventRecord): number | undefined {
  const answered = record.firedAtMs !== null && record.latencyMs !== null;
  const kind = latencyKind(record.outcome, record.attempts, answered);
  if (kind === 'unanswered') return UNANSWERED_MS;
  return kind === 'latency' ? (record.latencyMs ?? undefined) : undefined;
}
