/**
 * One planned request to PHI Identification, from its first send to its final answer: our own
 * deadline per attempt (wall time = model timeout ÷ k; see attemptWallDeadlineMs), the body always read to the end and
 * a 2xx body checked as JSON (src/client/attempt.ts), and the retry policy. Attempts are bounded: with `on429: record`
 * there is one; with `retry`, at most maxAttempts, whatever caused them — a 429 (after Retry-After or
 * back-off, on the model clock) or a 401 (after the token is renewed). The guard counts exactly
 * that worst case. Never rejects: a failure is the Outcome; a request the run stopped before its
 * first attempt resolves to undefined (unsent).
 */
import { setMaxListeners } from 'node:events';

import type { Outcome } from '../core/index.js';
import { TimeScale } from '../core/index.js';
import { API_PATHS } from '../spec/index.js';
import type { ApiClientSettings } from './api-settings.js';
import { type Attempt, type AttemptFn, createAttempt } from './attempt.js';
import type { ObfuscateAnswer } from './chain-answers.js';
import type { AttemptFailure } from './failure.js';
import { textBodyBytes } from './json.js';
import type { AnswerEntity, ApiCallFn, AttemptTiming, IdentifyFn, RequestResult } from './request-result.js';
import { nextRetry } from './retry.js';
import { sleepUntilOrStop } from './sleep.js';

export type { ApiClientSettings, TokenSource } from './api-settings.js';
export type { ApiCallFn, IdentifyFn, RequestResult } from './request-result.js';

export function createIdentify(settings: ApiClientSettings): IdentifyFn {
  const call = createApiCall(settings, API_PATHS.identification);
  return (text, seq, dueAtMs) => {
    const body = textBodyBytes(text);
    return call(body, body.length, seq, dueAtMs);
  };
}

/** The client of one endpoint at `path` (identification, or obfuscation for the deid chain). */
export function createApiCall(settings: ApiClientSettings, path: string): ApiCallFn {
  const attempt = createAttempt(settings, path, TimeScale.of(settings.timeScale));
  // The attempts waiting for an answer are cancelled together when the drain ends.
  settings.cancel?.addEventListener('abort', () => settings.pool.cancelAll(), { once: true });
  // Each request waiting to retry listens to the stop (removed when its wait ends): as many as are in
  // flight, not a leak, so Node's warning past 10 listeners would be noise on the run's stderr.
  if (settings.stop !== undefined) setMaxListeners(0, settings.stop);
  const maxAttempts = settings.on429.policy === 'retry' ? settings.on429.maxAttempts : 1;
  return (body, bodyBytes, seq, firstDueAtMs) =>
    sendWithRetries(settings, attempt, maxAttempts, { body, bodyBytes, seq, firstDueAtMs });
}

/** The request a planned arrival sends. */
interface PlannedRequest {
  readonly body: string | Uint8Array;
  readonly bodyBytes: number;
  readonly seq: number;
  readonly firstDueAtMs: number | undefined;
}

/** What the attempts of one request have gathered so far. */
interface Gathered {
  attempts: number;
  /** When the engine handed it over; replaced by the first attempt's actual send. */
  sentAtMs: number;
  readonly retryAfters: number[];
  readonly tries: AttemptTiming[];
  /** The wait before the next attempt, model ms. */
  waitMs: number | undefined;
}

/** Where the attempts of one request stand between two of them. */
interface Retrying {
  readonly gathered: Gathered;
  /** The request's result as it stands after the last attempt; undefined before the first. */
  last: RequestResult | undefined;
  /** When the next attempt is due (clock ms): told to a time-scaled mock. */
  dueAtMs: number;
  /** Sent again once, on a connection that did not sit idle, when a stale connection refused the write. */
  resent: boolean;
  maxAttempts: number;
}

/**
 * Sends `request` until an answer is final (or the attempts run out, or the run stops). The usual request, a token in
 * hand and one attempt whose answer is final, goes through without an async frame (this runs once per request): the
 * first attempt is chained with then(); what follows a 429, a 401 or a stale connection goes on in {@link retry}.
 */
function sendWithRetries(
  settings: ApiClientSettings,
  attempt: AttemptFn,
  maxAttempts: number,
  request: PlannedRequest,
): Promise<RequestResult | undefined> {
  const sentAtMs = settings.clock.nowMs();
  const state: Retrying = {
    gathered: { attempts: 0, sentAtMs, retryAfters: [], tries: [], waitMs: undefined },
    last: undefined,
    dueAtMs: request.firstDueAtMs ?? sentAtMs,
    resent: false,
    maxAttempts,
  };
  const token = settings.stop?.aborted === true ? undefined : settings.tokens.current();
  if (token === undefined) return retry(settings, attempt, request, state);
  const handedAtMs = settings.clock.nowMs();
  return attempt(
    request.body,
    request.bodyBytes,
    token,
    request.seq,
    1,
    Math.min(state.dueAtMs, handedAtMs),
    false,
  ).then((result) => {
    const next = afterAttempt(settings, state, token, result, handedAtMs);
    return next === 'again' ? retry(settings, attempt, request, state) : next;
  });
}

/** The attempts after the first (or the first, when a token must be waited for), each after its wait if it has one. */
async function retry(
  settings: ApiClientSettings,
  attempt: AttemptFn,
  request: PlannedRequest,
  state: Retrying,
): Promise<RequestResult | undefined> {
  const clock = settings.clock;
  const stopped = (): boolean => settings.stop?.aborted === true;
  for (;;) {
    // A 429's wait, decided after the attempt before (the next attempt's record takes it).
    if (state.gathered.waitMs !== undefined) await sleepUntilOrStop(clock, state.dueAtMs, settings.stop);
    if (stopped()) return state.last;
    // The token in hand when there is one (no promise per request), else wait for it.
    const token = settings.tokens.current() ?? (await tokenWhenReady(settings));
    if (token === undefined) return state.last;
    if (stopped()) return state.last;
    const handedAtMs = clock.nowMs();
    const result = await attempt(
      request.body,
      request.bodyBytes,
      token,
      request.seq,
      state.gathered.attempts + 1,
      Math.min(state.dueAtMs, handedAtMs),
      state.resent,
    );
    const next = afterAttempt(settings, state, token, result, handedAtMs);
    if (next !== 'again') return next;
  }
}

/**
 * What follows an attempt: the request's result when it is final (undefined: nothing left, unsent before its first
 * attempt), or `again` (another attempt is due at `state.dueAtMs`, after a wait when `gathered.waitMs` is set).
 */
function afterAttempt(
  settings: ApiClientSettings,
  state: Retrying,
  token: string,
  result: Attempt | undefined,
  handedAtMs: number,
): RequestResult | undefined | 'again' {
  const clock = settings.clock;
  // Nothing left: the request stays as it was (unsent before its first attempt).
  if (result === undefined) return state.last;
  const gathered = state.gathered;
  const last = recordAttempt(gathered, result, handedAtMs, clock.nowMs());
  state.last = last;
  // A 401 says the token is no longer good; a 2xx says the service took it.
  if (result.status === 401) settings.tokens.rejected(token);
  else if (result.outcome === 'ok' || result.outcome === 'malformed') settings.tokens.accepted(token);
  // It never left, so the service has not seen it: not one of the attempts the guard counts. Its latency still
  // runs from the intended time, so the cost of the stale connection shows.
  if (result.neverSent === true && !state.resent) {
    state.resent = true;
    state.maxAttempts++;
    state.dueAtMs = clock.nowMs();
    return 'again';
  }
  if (gathered.attempts >= state.maxAttempts) return last;
  // The token expired or was revoked under us: send again once it is renewed (one of the attempts).
  state.dueAtMs = clock.nowMs();
  if (result.status === 401) return 'again';
  if (result.outcome !== 'http_429') return last;
  const decision = nextRetry(settings.on429, gathered.attempts, result.retryAfterS, settings.rng);
  if (!decision.retry) return last;
  gathered.waitMs = decision.delayMs;
  // From when the answer was meant to come: a time-scaled mock holds it for its lag (Server-Timing), which a real
  // service does not.
  state.dueAtMs = clock.nowMs() - (result.lagMs ?? 0) + decision.delayMs;
  return 'again';
}

/** A token once the provider has one; undefined when none can be had. */
async function tokenWhenReady(settings: ApiClientSettings): Promise<string | undefined> {
  try {
    return await settings.tokens.get();
  } catch {
    // The run was stopped, or no token can be had (the run is ending): no new attempt.
    return undefined;
  }
}

/** Adds an attempt that ended at `endAtMs` to what was gathered; the request's result as it stands after it. */
function recordAttempt(gathered: Gathered, result: Attempt, handedAtMs: number, endAtMs: number): RequestResult {
  gathered.attempts++;
  // Service time runs from the headers' write, so connecting is not counted as service.
  const lastSentAtMs = result.sentAtMs ?? handedAtMs;
  if (gathered.attempts === 1) gathered.sentAtMs = lastSentAtMs;
  // Built field by field (no spreads of optional parts): this runs once per attempt.
  const timing: {
    sentAtMs: number;
    endAtMs: number;
    status?: number;
    serviceMs?: number;
    lagMs?: number;
    waitMs?: number;
    errorCode?: string;
  } = { sentAtMs: lastSentAtMs, endAtMs };
  if (result.status !== undefined) timing.status = result.status;
  if (result.errorCode !== undefined) timing.errorCode = result.errorCode;
  if (result.serviceMs !== undefined) timing.serviceMs = result.serviceMs;
  if (result.lagMs !== undefined) timing.lagMs = result.lagMs;
  if (gathered.waitMs !== undefined) timing.waitMs = gathered.waitMs;
  gathered.tries.push(timing);
  gathered.waitMs = undefined;
  if (result.retryAfterS !== undefined) gathered.retryAfters.push(result.retryAfterS);
  const final: {
    outcome: Outcome;
    status?: number;
    attempts: number;
    sentAtMs: number;
    lastSentAtMs: number;
    endAtMs: number;
    retryAfterS: number[];
    tries: AttemptTiming[];
    entities?: AnswerEntity[];
    truncated?: boolean;
    output?: ObfuscateAnswer;
    failure?: AttemptFailure;
  } = {
    outcome: result.outcome,
    attempts: gathered.attempts,
    sentAtMs: gathered.sentAtMs,
    lastSentAtMs,
    endAtMs,
    retryAfterS: gathered.retryAfters,
    tries: gathered.tries,
  };
  if (result.status !== undefined) final.status = result.status;
  if (result.entities !== undefined) final.entities = result.entities;
  if (result.truncated === true) final.truncated = true;
  if (result.output !== undefined) final.output = result.output;
  if (result.failure !== undefined) final.failure = result.failure;
  return final;
}
