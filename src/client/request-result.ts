/** What a planned request's client gives back: the result of its attempts, and the shapes of the client functions. */
import type { Outcome } from '../core/index.js';
import type { ObfuscateAnswer } from './chain-answers.js';
import type { AttemptFailure } from './failure.js';

/** What happened to one planned request. Times are on the model clock (ms). */
export interface RequestResult {
  readonly outcome: Outcome;
  /** HTTP status of the final attempt, when there was one. */
  readonly status?: number;
  /** Requests sent for this arrival (retries and the 401 renewal included). */
  readonly attempts: number;
  /**
   * When the first attempt's headers were written to the socket (when it was handed to the client, if they never were).
   */
  readonly sentAtMs: number;
  /** When the final attempt's headers were written to the socket, as sentAtMs (service time runs from here). */
  readonly lastSentAtMs: number;
  /** When the final answer ended (body read) or failed. */
  readonly endAtMs: number;
  /** Retry-After values received (seconds), one per 429 that carried one. */
  readonly retryAfterS: readonly number[];
  /** Every attempt, in order: when it was sent and answered, and its status (the rate-limit envelope replays them). */
  readonly tries: readonly AttemptTiming[];
  /** The final 2xx answer's entities, with keepEntities (absent when the answer had none in that shape). */
  readonly entities?: readonly AnswerEntity[];
  /** With keepEntities: the answer said its entity list was cut at the output cap. */
  readonly truncated?: boolean;
  /** With keepOutput: the final 2xx obfuscation answer's output (absent when it had no `text`). */
  readonly output?: ObfuscateAnswer;
  /** When the request was free to go, if later than planned: a deid document's earlier pieces answered (model ms). */
  readonly readyAtMs?: number;
  /** What the final attempt said when it failed (not a 2xx, not a 429): unmasked, the run masks it. */
  readonly failure?: AttemptFailure;
}

/** An entity of an identification answer, in the text it was sent. */
export interface AnswerEntity {
  readonly type: string;
  readonly start: number;
  readonly end: number;
}

/** One attempt of a request, on the model clock (ms). */
export interface AttemptTiming {
  /** When its headers were written to the socket (when it was handed to the client, if they never were). */
  readonly sentAtMs: number;
  /** When its answer ended (body read) or it failed. */
  readonly endAtMs: number;
  /** Its HTTP status; absent when there was no answer (timeout, reset, …). */
  readonly status?: number;
  /** Its time in the mock's modelled service (Server-Timing svc, model ms), when read and given. */
  readonly serviceMs?: number;
  /**
   * How long a time-scaled mock held the answer after its model time (Server-Timing lag, model ms): not service, not
   * overhead.
   */
  readonly lagMs?: number;
  /** The wait the client chose before sending it (model ms): a retry's Retry-After or back-off. */
  readonly waitMs?: number;
  /** A 429's error code, from its body's `error` (or `code`) when that is a short token: which limit refused it. */
  readonly errorCode?: string;
}

/**
 * Sends planned request `seq` (tagged on the wire as x-loadproof-seq / x-loadproof-attempt, for
 * correlation). Resolves to undefined when the run stopped before its first attempt (unsent).
 */
export type IdentifyFn = (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined>;

/**
 * Sends a JSON body (`bytes` long: a string, or its UTF-8 bytes) as planned request `seq`, with the same attempts,
 * deadlines and retries as identification.
 */
export type ApiCallFn = (
  body: string | Uint8Array,
  bytes: number,
  seq: number,
  dueAtMs?: number,
) => Promise<RequestResult | undefined>;
