/** What the recorder counts: the outcome classes of a planned request, and what it reads of an event. */

// A request's fate is one vocabulary, src/core/request-fate.ts; the recorder counts it.
import type { CountedOutcome } from '../core/index.js';

/**
 * Outcomes without a usable HTTP answer (transport errors, a body not JSON, a body over the cap): the "errors"
 * breakdown of reports.
 */
export const ERROR_OUTCOMES = [
  'timeout',
  'reset',
  'refused',
  'malformed',
  'too_large',
  'error',
  'abandoned',
] as const satisfies readonly CountedOutcome[];

/**
 * Planned requests that failed, as k6's http_req_failed: every outcome but a 2xx, a 429 (judged by
 * its own check) and unsent (the run stopped first). What rate(errors) and the error check count.
 */
export const FAILED_OUTCOMES = [
  'http_504',
  'http_other',
  ...ERROR_OUTCOMES,
  'dropped',
] as const satisfies readonly CountedOutcome[];

/**
 * One attempt of a request (model ms): its send, its end, its status, and what the accounting of latency and the
 * envelope read.
 */
export interface RecordedTry {
  readonly sentAtMs: number;
  readonly endAtMs: number;
  /** Its HTTP status; absent or null without an answer. */
  readonly status?: number | null;
  /** Its time in the mock's modelled service (Server-Timing svc, model ms); only at time scale k > 1. */
  readonly serviceMs?: number;
  /**
   * How long a time-scaled mock held the answer after its model time (Server-Timing lag, model ms); counted out of the
   * latency.
   */
  readonly lagMs?: number;
  /**
   * The wait the client chose before sending it (a retry's back-off or Retry-After, model ms); only on a retry that
   * waited.
   */
  readonly waitMs?: number;
  /** A 429's error code from its body (spec LIMIT_429_CODES: which limit refused it), when it named one. */
  readonly errorCode?: string;
}

/** What the recorder needs of an event (the engine's RequestEvent has it). */
export interface RecordableEvent {
  readonly phase: number;
  readonly intendedAtMs: number;
  /**
   * A deid piece held back by its document: when it was free to go; its latency and send lag run from here, not
   * intendedAtMs.
   */
  readonly readyAtMs?: number;
  readonly outcome: CountedOutcome;
  readonly firedAtMs?: number;
  readonly result?: {
    readonly status?: number;
    readonly attempts: number;
    readonly lastSentAtMs: number;
    readonly endAtMs: number;
    readonly retryAfterS: readonly number[];
    /**
     * Each attempt's send and answer times (model ms) and status (none: absent or null); absent in events written
     * before they were recorded.
     */
    readonly tries?: readonly RecordedTry[];
    /**
     * Latency as judged (model ms), when it is not endAtMs − intendedAtMs (time scale k > 1: overheads counted once).
     */
    readonly latencyMs?: number;
    /** Service time as judged (model ms), when it is not endAtMs − lastSentAtMs. */
    readonly serviceMs?: number;
  };
}
