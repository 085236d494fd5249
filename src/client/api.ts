/**
 * One planned request to PHI Identification, from its first send to its final answer: our own
 * deadline per attempt (wall time = model timeout ÷ k; see attemptWallDeadlineMs), the body always read to the end and a 2xx
 * body checked as JSON, and the retry policy. Attempts are bounded: with `on429: record` there is
 * one; with `retry`, at most maxAttempts, whatever caused them — a 429 (after Retry-After or
 * back-off, on the model clock) or a 401 (after the token is renewed). The guard counts exactly
 * that worst case. Never rejects: a failure is the Outcome; a request the run stopped before its
 * first attempt resolves to undefined (unsent).
 */
import { setMaxListeners } from 'node:events';
import { type Clock, monotonicMs, MIN_SECRET_LENGTH, type Rng } from '../core/index.js';
import { API_PATHS, DUE_HEADER, ERROR_CODE_PATTERN, parseModelLag, parseModelTime } from '../spec/index.js';
import { type Outcome, classifyError, classifyStatus } from './classify.js';
import { parseJsonObject, textBody } from './json.js';
import { type RetryPolicy, nextRetry, parseRetryAfterS } from './retry.js';
import type { ConnectionPool } from './http1/pool.js';
import { HEADER_SAFE, type TokenProvider } from './token.js';

/** What a request needs of the token provider. */
export type TokenSource = Pick<TokenProvider, 'current' | 'get' | 'accepted' | 'rejected'>;

export interface ApiClientSettings {
  readonly baseUrl: string;
  /** The connections to baseUrl's origin the attempts are sent on (our HTTP/1.1 client). */
  readonly pool: ConnectionPool;
  readonly tokens: TokenSource;
  /** The run's model clock. */
  readonly clock: Clock;
  /** k: wall time = model time ÷ k. */
  readonly timeScale: number;
  /** Client deadline per attempt, model ms. */
  readonly timeoutMs: number;
  /** Read each answer's time in the mock's modelled service (Server-Timing svc): time-scaled runs against a mock only. */
  readonly readServerTiming?: boolean;
  readonly on429: { readonly policy: 'record' | 'retry' } & RetryPolicy;
  /** Jitter of the back-off. */
  readonly rng: Rng;
  /** Aborted when the run stops: no new attempt starts, and a wait before a retry ends at once. */
  readonly stop?: AbortSignal;
  /** Aborted when the run's drain ends: attempts still waiting for an answer are cancelled (`abandoned`). */
  readonly cancel?: AbortSignal;
  /** Keep the entities of a 2xx answer (`entities: [{type, start, end}]`) in the result: the deid chain obfuscates them. */
  readonly keepEntities?: boolean;
}

/** What happened to one planned request. Times are on the model clock (ms). */
export interface RequestResult {
  readonly outcome: Outcome;
  /** HTTP status of the final attempt, when there was one. */
  readonly status?: number;
  /** Requests sent for this arrival (retries and the 401 renewal included). */
  readonly attempts: number;
  /** When the first attempt's headers were written to the socket (when it was handed to the client, if they never were). */
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
  /** When the request was free to go, if later than planned: a deid document's earlier pieces answered (model ms). */
  readonly readyAtMs?: number;
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
  /** How long a time-scaled mock held the answer after its model time (Server-Timing lag, model ms): not service, not overhead. */
  readonly lagMs?: number;
  /** The wait the client chose before sending it (model ms): a retry's Retry-After or back-off. */
  readonly waitMs?: number;
  /** A 429's error code, from its body's `error` (or `code`) when that is a short token: which limit refused it. */
  readonly errorCode?: string;
}

interface Attempt {
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
}

/**
 * Sends planned request `seq` (tagged on the wire as x-loadproof-seq / x-loadproof-attempt, for
 * correlation). Resolves to undefined when the run stopped before its first attempt (unsent).
 */
export type IdentifyFn = (text: string, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined>;

/** Sends a JSON body (`bytes` long) as planned request `seq`, with the same attempts, deadlines and retries as identification. */
export type ApiCallFn = (body: string, bytes: number, seq: number, dueAtMs?: number) => Promise<RequestResult | undefined>;

export function createIdentify(settings: ApiClientSettings): IdentifyFn {
  const call = createApiCall(settings, API_PATHS.identification);
  return (text, seq, dueAtMs) => {
    const { body, bytes } = textBody(text);
    return call(body, bytes, seq, dueAtMs);
  };
}

/** The client of one endpoint at `path` (identification, or obfuscation for the deid chain). */
export function createApiCall(settings: ApiClientSettings, path: string): ApiCallFn {
  const url = settings.baseUrl.replace(/\/+$/, '') + path;
  const k = settings.timeScale;
  const judgedOnModelTime = settings.readServerTiming === true && k > 1;
  const wallTimeoutMs = attemptWallDeadlineMs(settings.timeoutMs, k, judgedOnModelTime);
  const host = new URL(url).host;
  // What every attempt's head starts with; the token, the correlation headers and the length follow.
  const headStart = `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json\r\nauthorization: Bearer `;
  const pool = settings.pool;
  let safeToken: string | undefined;
  // The attempts waiting for an answer are cancelled together when the drain ends.
  settings.cancel?.addEventListener('abort', () => pool.cancelAll(), { once: true });
  // Each request waiting to retry listens to the stop (removed when its wait ends): as many as are in
  // flight, not a leak, so Node's warning past 10 listeners would be noise on the run's stderr.
  if (settings.stop !== undefined) setMaxListeners(0, settings.stop);

  /** `dueAtMs`: when the attempt was due (clock ms), told to a time-scaled mock (DUE_HEADER) so it is admitted then. */
  const keepEntities = settings.keepEntities === true;
  /** One attempt; undefined when it cannot leave at all (a token a header cannot carry): not an attempt, nothing sent. */
  const attempt = (body: string, bodyBytes: number, token: string, seq: number, attemptNo: number, dueAtMs: number): Promise<Attempt | undefined> =>
    new Promise((resolve) => {
      if (settings.cancel?.aborted === true) return resolve({ outcome: 'abandoned' });
      // Never put a CR or LF from a server into our request; a token is checked once, not per attempt. The token
      // provider refuses such a token where it enters (AUTH_FAILED); this is the last line, and counts nothing as sent.
      if (token !== safeToken) {
        if (!HEADER_SAFE.test(token)) return resolve(undefined);
        safeToken = token;
      }
      let sentAtMs: number | undefined;
      const due = judgedOnModelTime ? `${DUE_HEADER}: ${(monotonicMs() - (settings.clock.nowMs() - dueAtMs) / k).toFixed(3)}\r\n` : '';
      const bytes = `${headStart}${token}\r\nx-loadproof-seq: ${seq}\r\nx-loadproof-attempt: ${attemptNo}\r\n${due}content-length: ${bodyBytes}\r\n\r\n${body}`;
      pool.request(
        bytes,
        wallTimeoutMs,
        () => (sentAtMs = settings.clock.nowMs()),
        (error, res) => {
          // Built field by field (no spreads of optional parts): this runs once per attempt.
          const result: { sentAtMs?: number; outcome: Outcome; status?: number; retryAfterS?: number; serviceMs?: number; lagMs?: number; errorCode?: string; entities?: AnswerEntity[]; truncated?: boolean } = { outcome: 'error' };
          if (sentAtMs !== undefined) result.sentAtMs = sentAtMs;
          if (res === undefined) {
            const code = (error as { code?: unknown } | undefined)?.code;
            result.outcome = code === 'LOADPROOF_CANCELLED' ? 'abandoned' : classifyError(error, code === 'LOADPROOF_DEADLINE');
            return resolve(result);
          }
          const serviceMs = settings.readServerTiming === true ? parseModelTime(res.headers['server-timing']) : undefined;
          if (serviceMs !== undefined) result.serviceMs = serviceMs;
          const lagMs = judgedOnModelTime ? parseModelLag(res.headers['server-timing']) : undefined;
          if (lagMs !== undefined) result.lagMs = lagMs;
          // At k > 1 the wall deadline had room for overheads: the timeout is judged on the model time.
          if (judgedOnModelTime && sentAtMs !== undefined && attemptModelMs(settings.clock.nowMs() - sentAtMs - (lagMs ?? 0), serviceMs, k) > settings.timeoutMs) {
            result.outcome = 'timeout';
            return resolve(result);
          }
          result.status = res.status;
          result.outcome = classifyStatus(res.status);
          // A 2xx body must be a JSON object; other bodies are read (the connection is reused) but not parsed.
          if (result.outcome === 'ok') {
            const answer = parseJsonObject(res.body.toString('utf8'));
            if (answer === undefined) result.outcome = 'malformed';
            else if (keepEntities) {
              const entities = entitiesOf(answer);
              // The chain needs the entities: an answer without them in that shape cannot be obfuscated from.
              if (entities === undefined) result.outcome = 'malformed';
              else result.entities = entities;
              if (answer.truncated === true) result.truncated = true;
            }
          } else if (res.status === 429) {
            const retryAfterS = parseRetryAfterS(res.headers['retry-after']);
            if (retryAfterS !== undefined) result.retryAfterS = retryAfterS;
            const errorCode = errorCodeOf(res.body.toString('utf8'), token);
            if (errorCode !== undefined) result.errorCode = errorCode;
          }
          resolve(result);
        },
      );
    });
  const stopped = (): boolean => settings.stop?.aborted === true;
  const maxAttempts = settings.on429.policy === 'retry' ? settings.on429.maxAttempts : 1;

  return async (body, bodyBytes, seq, firstDueAtMs) => {
    const clock = settings.clock;
    const retryAfters: number[] = [];
    const tries: AttemptTiming[] = [];
    let attempts = 0;
    let last: RequestResult | undefined;
    let waitMs: number | undefined;
    // When the engine handed it over; replaced by the first attempt's actual send.
    let sentAtMs = clock.nowMs();
    let dueAtMs = firstDueAtMs ?? sentAtMs;
    for (;;) {
      if (stopped()) return last;
      // The token in hand when there is one (no promise per request), else wait for it.
      let token = settings.tokens.current();
      if (token === undefined) {
        try {
          token = await settings.tokens.get();
        } catch {
          // The run was stopped, or no token can be had (the run is ending): no new attempt.
          return last;
        }
      }
      if (stopped()) return last;
      const handedAtMs = clock.nowMs();
      const result = await attempt(body, bodyBytes, token, seq, attempts + 1, Math.min(dueAtMs, handedAtMs));
      // Nothing left: the request stays as it was (unsent before its first attempt).
      if (result === undefined) return last;
      attempts++;
      const endAtMs = clock.nowMs();
      // Service time runs from the headers' write, so connecting is not counted as service.
      const lastSentAtMs = result.sentAtMs ?? handedAtMs;
      if (attempts === 1) sentAtMs = lastSentAtMs;
      const timing: { sentAtMs: number; endAtMs: number; status?: number; serviceMs?: number; lagMs?: number; waitMs?: number; errorCode?: string } = { sentAtMs: lastSentAtMs, endAtMs };
      if (result.status !== undefined) timing.status = result.status;
      if (result.errorCode !== undefined) timing.errorCode = result.errorCode;
      if (result.serviceMs !== undefined) timing.serviceMs = result.serviceMs;
      if (result.lagMs !== undefined) timing.lagMs = result.lagMs;
      if (waitMs !== undefined) timing.waitMs = waitMs;
      tries.push(timing);
      waitMs = undefined;
      if (result.retryAfterS !== undefined) retryAfters.push(result.retryAfterS);
      // A 401 says the token is no longer good; a 2xx says the service took it.
      if (result.status === 401) settings.tokens.rejected(token);
      else if (result.outcome === 'ok' || result.outcome === 'malformed') settings.tokens.accepted(token);
      const final: { outcome: Outcome; status?: number; attempts: number; sentAtMs: number; lastSentAtMs: number; endAtMs: number; retryAfterS: number[]; tries: AttemptTiming[]; entities?: AnswerEntity[]; truncated?: boolean } = {
        outcome: result.outcome,
        attempts,
        sentAtMs,
        lastSentAtMs,
        endAtMs,
        retryAfterS: retryAfters,
        tries,
      };
      if (result.status !== undefined) final.status = result.status;
      if (result.entities !== undefined) final.entities = result.entities;
      if (result.truncated === true) final.truncated = true;
      last = final;
      if (attempts >= maxAttempts) return last;
      // The token expired or was revoked under us: send again once it is renewed (one of the attempts).
      dueAtMs = clock.nowMs();
      if (result.status === 401) continue;
      if (result.outcome !== 'http_429') return last;
      const decision = nextRetry(settings.on429, attempts, result.retryAfterS, settings.rng);
      if (!decision.retry) return last;
      waitMs = decision.delayMs;
      // From when the answer was meant to come: a time-scaled mock holds it for its lag (Server-Timing), which a real service does not.
      dueAtMs = clock.nowMs() - (result.lagMs ?? 0) + decision.delayMs;
      await sleepUntilOrStop(clock, dueAtMs, settings.stop);
    }
  };
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

export { HEADER_SAFE } from './token.js';

/**
 * How long an attempt waits for its answer, wall ms. At k = 1 (or without the mock's Server-Timing) it is
 * the timeout ÷ k. At k > 1 against the mock the timeout is judged on the attempt's model time — its time
 * in the service (Server-Timing) plus the wall time outside it, counted once, as src/judge/accounting.ts
 * counts latency — so the client waits up to OVERHEAD_ALLOWANCE_WALL_MS longer: a machine that stalls for
 * a moment (another process on the core, a long GC) does not turn a prompt answer into a timeout, which
 * at k = 60 (a 250 ms wall deadline for 15 s) it did.
 */
export function attemptWallDeadlineMs(timeoutMs: number, timeScale: number, judgedOnModelTime: boolean): number {
  const scaled = timeoutMs / timeScale;
  return judgedOnModelTime ? scaled + Math.min(OVERHEAD_ALLOWANCE_WALL_MS, timeoutMs - scaled) : scaled;
}

/** Wall time granted beyond timeout ÷ k for overheads at k > 1 (ms): longer stalls show as the generator's lag. */
export const OVERHEAD_ALLOWANCE_WALL_MS = 1000;

/** An attempt's model time: its service time (Server-Timing) plus the rest of its raw time counted once; without svc, the raw time. */
function attemptModelMs(rawMs: number, serviceMs: number | undefined, timeScale: number): number {
  return serviceMs === undefined ? rawMs : serviceMs + (rawMs - serviceMs) / timeScale;
}

/** Resolves once `clock` reaches `atMs`, or at once when `stop` aborts. */
function sleepUntilOrStop(clock: Clock, atMs: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      stop?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(atMs, done);
    if (stop?.aborted === true) done();
    else stop?.addEventListener('abort', done, { once: true });
  });
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
  const echoes = token !== undefined && token.length >= MIN_SECRET_LENGTH && (code.includes(token) || (code.length >= MIN_SECRET_LENGTH && token.includes(code)));
  return echoes ? undefined : code;
}

