/**
 * One attempt of a planned request: its bytes on the wire (head, token, correlation headers, body), its
 * wall deadline, and its answer read into an Attempt — Server-Timing, the timeout judged on model time at
 * k > 1, the status's outcome, a 2xx body checked as JSON (and its entities kept), a 429's Retry-After and code.
 */
import type { Outcome } from '../core/index.js';
import { MIN_SECRET_LENGTH, monotonicMs, type TimeScale } from '../core/index.js';
import { DUE_HEADER, ERROR_CODE_PATTERN, parseModelLag, parseModelTime } from '../spec/index.js';
import type { ApiClientSettings } from './api-settings.js';
import { attemptModelMs, attemptWallDeadline } from './attempt-deadline.js';
import { type ObfuscateAnswer, obfuscationOutput } from './chain-answers.js';
import { classifyError, classifyStatus } from './classify.js';
import { answerFailure, type AttemptFailure, errorFailure } from './failure.js';
import type { Http1Response } from './http1/response.js';
import { proxyLost, ProxyTunnelError } from './http1/tunnel.js';
import { parseJsonObject } from './json.js';
import { describeRedirect, isRedirect } from './redirect.js';
import { RequestBytes, requestHeadStart } from './request-bytes.js';
import type { AnswerEntity } from './request-result.js';
import { parseRetryAfterS } from './retry.js';
import { HEADER_SAFE } from './token-request.js';

/** What one attempt gave. */
export interface Attempt {
  /** Model ms when its headers were written to the socket; absent when they never were. */
  readonly sentAtMs?: number;
  readonly outcome: Outcome;
  readonly status?: number;
  readonly retryAfterS?: number;
  readonly serviceMs?: number;
  readonly lagMs?: number;
  readonly errorCode?: string;
  readonly entities?: AnswerEntity[];
  readonly truncated?: boolean;
  readonly output?: ObfuscateAnswer;
  /** A stale connection refused the write: no byte of the request left, so it may be sent again. */
  readonly neverSent?: boolean;
  /** What a failed attempt said (any outcome but a 2xx and a 429). */
  readonly failure?: AttemptFailure;
}

/**
 * One attempt; undefined when it cannot leave at all (a token a header cannot carry, a tunnel the proxy refused or
 * could not make): not an attempt, nothing sent.
 */
export type AttemptFn = (
  body: string | Uint8Array,
  bodyBytes: number,
  token: string,
  seq: number,
  attemptNo: number,
  dueAtMs: number,
  fresh?: boolean,
) => Promise<Attempt | undefined>;

/** What every attempt of one endpoint's client shares. */
interface AttemptContext {
  readonly settings: ApiClientSettings;
  readonly scale: TimeScale;
  /** At k > 1 against the mock, the timeout is judged on the attempt's model time (see attemptWallDeadlineMs). */
  readonly judgedOnModelTime: boolean;
  readonly keepEntities: boolean;
  readonly keepOutput: boolean;
  /** The endpoint's URL, against which a redirect's Location is read. */
  readonly url: string;
}

/** Built field by field (no spreads of optional parts): this runs once per attempt. */
type MutableAttempt = { -readonly [K in keyof Attempt]: Attempt[K] };

/** The attempts of the client of the endpoint at `path`. */
export function createAttempt(settings: ApiClientSettings, path: string, scale: TimeScale): AttemptFn {
  const url = settings.baseUrl.replace(/\/+$/, '') + path;
  const judgedOnModelTime = settings.readServerTiming === true && !scale.isReal;
  const wallDeadline = attemptWallDeadline(settings.timeoutMs, scale.k, judgedOnModelTime);
  // What every attempt's head starts with; the token, the correlation headers and the length follow.
  const requests = new RequestBytes(requestHeadStart(path, new URL(url).host));
  const context: AttemptContext = {
    settings,
    scale,
    judgedOnModelTime,
    keepEntities: settings.keepEntities === true,
    keepOutput: settings.keepOutput === true,
    url,
  };
  let safeToken: string | undefined;
  /**
   * `dueAtMs`: when the attempt was due (clock ms), told to a time-scaled mock (DUE_HEADER) so it is admitted then.
   * `fresh`: on a connection that did not sit idle (see ConnectionPool.request).
   */
  return (body, bodyBytes, token, seq, attemptNo, dueAtMs, fresh = false) =>
    new Promise((resolve) => {
      if (settings.cancel?.aborted === true) return resolve({ outcome: 'abandoned' });
      // Never put a CR or LF from a server into our request; a token is checked once, not per attempt. The token
      // provider refuses such a token where it enters (AUTH_FAILED); this is the last line, and counts nothing as sent.
      if (token !== safeToken) {
        if (!HEADER_SAFE.test(token)) return resolve(undefined);
        safeToken = token;
      }
      let sentAtMs: number | undefined;
      const due = judgedOnModelTime
        ? `${DUE_HEADER}: ${(monotonicMs() - scale.toWallMs(settings.clock.nowMs() - dueAtMs)).toFixed(3)}\r\n`
        : '';
      const headers = `x-loadproof-seq: ${seq}\r\nx-loadproof-attempt: ${attemptNo}\r\n${due}content-length: ${bodyBytes}\r\n\r\n`;
      const bytes = requests.build(token, headers, body, bodyBytes);
      settings.pool.request(
        bytes,
        wallDeadline,
        () => (sentAtMs = settings.clock.nowMs()),
        (error, res) => {
          if (res !== undefined) return resolve(answeredAttempt(context, res, sentAtMs, token));
          if (error instanceof ProxyTunnelError) {
            settings.onProxyFailure?.(error.message, error.routeFault);
            // The proxy refused the tunnel itself, or was lost: nothing reached the service, so it is not an attempt.
            if (error.routeFault) return resolve(undefined);
          }
          void lostOnTheRoute(settings, failedAttempt(error, sentAtMs)).then(resolve);
        },
        fresh,
      );
    });
}

/**
 * A reset through a proxy's tunnel, when the proxy is then found gone: lost by the route, not the target (the run is
 * told, and stops). Judged as a stale connection's loss is: the service may never have seen it, so it is no error of
 * the service, unanswered in latency, and a check it could decide is inconclusive. Any other attempt as it is.
 */
async function lostOnTheRoute(settings: ApiClientSettings, failed: Attempt): Promise<Attempt> {
  const proxy = settings.pool.proxy;
  if (proxy === undefined || failed.outcome !== 'reset') return failed;
  const lost = await proxyLost(proxy);
  if (lost === undefined) return failed;
  settings.onProxyFailure?.(lost.message, true);
  return { ...failed, outcome: 'stale_connection' };
}

/** An attempt that got no answer: cancelled at the drain's end, past its deadline, or failed. */
function failedAttempt(error: unknown, sentAtMs: number | undefined): Attempt {
  const result: MutableAttempt = { outcome: 'error' };
  if (sentAtMs !== undefined) result.sentAtMs = sentAtMs;
  const code = (error as { code?: unknown } | undefined)?.code;
  result.outcome = code === 'LOADPROOF_CANCELLED' ? 'abandoned' : classifyError(error, code === 'LOADPROOF_DEADLINE');
  if (result.outcome === 'stale_connection' && (error as { neverSent?: unknown }).neverSent === true)
    result.neverSent = true;
  result.failure = errorFailure(error);
  return result;
}

/** An attempt that got an answer: its Server-Timing, then its outcome, judged on model time at k > 1. */
function answeredAttempt(
  context: AttemptContext,
  res: Http1Response,
  sentAtMs: number | undefined,
  token: string,
): Attempt {
  const { settings, judgedOnModelTime } = context;
  const result: MutableAttempt = { outcome: 'error' };
  if (sentAtMs !== undefined) result.sentAtMs = sentAtMs;
  const serviceMs = settings.readServerTiming === true ? parseModelTime(res.headers['server-timing']) : undefined;
  if (serviceMs !== undefined) result.serviceMs = serviceMs;
  const lagMs = judgedOnModelTime ? parseModelLag(res.headers['server-timing']) : undefined;
  if (lagMs !== undefined) result.lagMs = lagMs;
  // At k > 1 the wall deadline had room for overheads: the timeout is judged on the model time.
  if (
    judgedOnModelTime &&
    sentAtMs !== undefined &&
    attemptModelMs(settings.clock.nowMs() - sentAtMs - (lagMs ?? 0), serviceMs, context.scale) > settings.timeoutMs
  ) {
    result.outcome = 'timeout';
    result.failure = { text: `no complete answer within the ${settings.timeoutMs} ms timeout (model time)` };
    return result;
  }
  result.status = res.status;
  result.outcome = classifyStatus(res.status);
  // A 2xx body must be a JSON object; other bodies are read (the connection is reused) but not parsed.
  if (result.outcome === 'ok') readOkBody(result, res, context);
  else if (res.status === 429) readRateLimited(result, res, token);
  else if (isRedirect(res.status))
    settings.onRedirect?.(describeRedirect(res.status, res.headers.location, context.url));
  if (result.outcome !== 'ok' && result.outcome !== 'http_429')
    result.failure = answerFailure(res, errorCodeOf(res.body.toString('utf8'), token));
  return result;
}

/** A 2xx answer's body: a JSON object, with its entities (or its output) when the chain needs them. */
function readOkBody(result: MutableAttempt, res: Http1Response, context: AttemptContext): void {
  const answer = parseJsonObject(res.body.toString('utf8'));
  if (answer === undefined) result.outcome = 'malformed';
  else if (context.keepOutput) {
    const output = obfuscationOutput(answer);
    if (output !== undefined) result.output = output;
  } else if (context.keepEntities) {
    const entities = entitiesOf(answer);
    // The chain needs the entities: an answer without them in that shape cannot be obfuscated from.
    if (entities === undefined) result.outcome = 'malformed';
    else result.entities = entities;
    if (answer.truncated === true) result.truncated = true;
  }
}

/** A 429's Retry-After and error code (which limit refused it). */
function readRateLimited(result: MutableAttempt, res: Http1Response, token: string): void {
  const retryAfterS = parseRetryAfterS(res.headers['retry-after']);
  if (retryAfterS !== undefined) result.retryAfterS = retryAfterS;
  const errorCode = errorCodeOf(res.body.toString('utf8'), token);
  if (errorCode !== undefined) result.errorCode = errorCode;
}

/** An answer's `entities` as [{type, start, end}], or undefined when they are not in that shape. */
function entitiesOf(answer: Record<string, unknown>): AnswerEntity[] | undefined {
  if (!Array.isArray(answer.entities)) return undefined;
  const entities: AnswerEntity[] = [];
  for (const e of answer.entities as unknown[]) {
    const { type, start, end } = (e ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || !Number.isInteger(start) || !Number.isInteger(end)) return undefined;
    entities.push({ type, start: start as number, end: end as number });
  }
  return entities;
}

/**
 * The error code of an error body (`{"error": "…"}`, OAuth's shape, or `{"code": "…"}`), when it is a short
 * token. A code that holds the access token, or a piece of it, is an echo of the request: not kept (it
 * would be masked in events.ndjson, and "[redacted]" is not a code).
 */
export function errorCodeOf(body: string, token?: string): string | undefined {
  const value = parseJsonObject(body);
  const code = value?.error ?? value?.code;
  if (typeof code !== 'string' || !ERROR_CODE_PATTERN.test(code)) return undefined;
  const echoes =
    token !== undefined &&
    token.length >= MIN_SECRET_LENGTH &&
    (code.includes(token) || (code.length >= MIN_SECRET_LENGTH && token.includes(code)));
  return echoes ? undefined : code;
}
