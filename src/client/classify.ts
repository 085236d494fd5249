/**
 * Every request sent ends in exactly one Outcome, so counts add up:
 *   sent = ok + http_429 + http_504 + http_other + timeout + reset + refused + malformed + too_large + error +
 *     abandoned + stale_connection.
 * HTTP statuses come first; transport failures are classified by Node's error codes (undici's too, for
 * callers that use it); a timeout is our own deadline (src/client/http1: one timer
 * for all attempts), never a library's coarse timers; a response that is not HTTP/1.x (HPE_* codes)
 * is an `error`, and a close before the answer is whole a `reset`. `too_large`: an answer whose body passed
 * MAX_ANSWER_BYTES (announced or read), not read on, its connection closed. `abandoned`: still
 * unanswered when the run's drain ended, so the run cancelled it. `stale_connection`: a reset or a close before any
 * byte of the answer on a kept-alive connection that had sat idle (StaleConnectionError): the
 * server most likely closed it while idle, so it is the client's, not the service's error.
 */

import type { Outcome } from '../core/index.js';
import { ProxyTunnelError } from './http1/tunnel.js';

/** The outcome of a response with this status whose body was read (and, for 2xx, parsed) as expected. */
export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'http_429';
  if (status === 504) return 'http_504';
  return 'http_other';
}

/** AnswerTooLargeError's code (src/client/http1/response.ts; small-request.ts throws the same). */
export const TOO_LARGE_CODE = 'LOADPROOF_ANSWER_TOO_LARGE';
/** StaleConnectionError's code (src/client/http1/request-errors.ts). */
const STALE_CONNECTION_CODE = 'LOADPROOF_STALE_CONNECTION';
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const REFUSED_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** The outcome of a request that failed without a usable response. `deadlineHit`: our own timer fired. */
export function classifyError(error: unknown, deadlineHit: boolean): Outcome {
  if (deadlineHit) return 'timeout';
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === TOO_LARGE_CODE) return 'too_large';
  if (code === STALE_CONNECTION_CODE) return 'stale_connection';
  // A proxy that could not reach the target says so in its answer to CONNECT: the target's failure, as direct.
  if (error instanceof ProxyTunnelError && error.targetOutcome !== undefined) return error.targetOutcome;
  const seen = new Set<unknown>();
  // undici wraps the socket error in `cause`; look down the chain for a known code (ours are not wrapped).
  for (let e: unknown = error; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (RESET_CODES.has(code)) return 'reset';
      if (REFUSED_CODES.has(code)) return 'refused';
      if (TIMEOUT_CODES.has(code)) return 'timeout';
    }
    if (e.name === 'TimeoutError') return 'timeout';
  }
  return 'error';
}
