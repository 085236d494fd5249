/**
 * What a failed attempt said, kept so a report can show it (the "top errors" table): the answer's error code and the
 * start of its body, or the client's own error code and message when no answer came. Bounded where it enters: the
 * body is hostile, and only its start is ever shown (the run masks and neutralises it before it is written).
 */
import type { Http1Response } from './http1/response.js';

/** What one failed attempt said. */
export interface AttemptFailure {
  /** The answer's `error` (or `code`) when a short token, or the client's error code (ECONNRESET, …). */
  readonly code?: string;
  /** The start of the answer's body, or the client's error message. */
  readonly text: string;
  /** The text is the start of a longer one, cut where no secret is known: it may end inside one. */
  readonly cut?: true;
}

/**
 * The most of a body kept (bytes): far more than is shown, so a secret that begins within what is shown is whole
 * when it is masked (the one cut at this end is dropped when the text is shown).
 */
const FAILURE_TEXT_BYTES = 4096;

/**
 * A failed answer (a status other than 2xx and 429, or a 2xx not as expected): its code and the start of its body. A
 * 2xx body is not kept: an answer quotes the texts sent (its entities), and they may be a user's documents.
 */
export function answerFailure(res: Http1Response, code: string | undefined): AttemptFailure {
  if (res.status >= 200 && res.status < 300) {
    const text = `a ${res.status} answer not as expected (${res.body.length} bytes; not kept: an answer quotes the texts sent)`;
    return code === undefined ? { text } : { code, text };
  }
  return failureOf(
    code,
    res.body.subarray(0, FAILURE_TEXT_BYTES).toString('utf8'),
    res.body.length > FAILURE_TEXT_BYTES,
  );
}

/** An attempt that got no answer: the client's error code and message. */
export function errorFailure(error: unknown): AttemptFailure {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const text = message.slice(0, FAILURE_TEXT_BYTES);
  return failureOf(typeof code === 'string' ? code : undefined, text, message.length > FAILURE_TEXT_BYTES);
}

function failureOf(code: string | undefined, text: string, cut: boolean): AttemptFailure {
  return { ...(code === undefined ? {} : { code }), text, ...(cut ? { cut: true as const } : {}) };
}
