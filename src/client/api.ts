/**
 * One planned request to PHI Identification, from its first send to its final answer: our own
 * deadline per attempt (wall time = model timeout ÷ k), the body always read to the end and a 2xx
 * body checked as JSON, a new token and one more attempt after a 401, and the 429 policy (record,
 * or retry after Retry-After / back-off, waiting on the model clock). Never throws for a request
 * that failed: the failure is the Outcome.
 */
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { type Clock, sleepUntil } from '../core/clock.js';
import type { Rng } from '../core/rng.js';
import { API_PATHS } from '../spec/index.js';
import { type Outcome, classifyError, classifyStatus } from './classify.js';
import { parseJsonObject } from './json.js';
import { type RetryPolicy, nextRetry, parseRetryAfterS } from './retry.js';
import type { TokenProvider } from './token.js';

export interface ApiClientSettings {
  readonly baseUrl: string;
  readonly dispatcher: Dispatcher;
  readonly tokens: TokenProvider;
  /** The run's model clock. */
  readonly clock: Clock;
  /** k: wall time = model time ÷ k. */
  readonly timeScale: number;
  /** Client deadline per attempt, model ms. */
  readonly timeoutMs: number;
  readonly on429: { readonly policy: 'record' | 'retry' } & RetryPolicy;
  /** Jitter of the back-off. */
  readonly rng: Rng;
}

/** What happened to one planned request. Times are on the model clock (ms). */
export interface RequestResult {
  readonly outcome: Outcome;
  /** HTTP status of the final attempt, when there was one. */
  readonly status?: number;
  /** Requests sent for this arrival (retries and the 401 renewal included). */
  readonly attempts: number;
  /** When the first attempt was handed to the socket layer. */
  readonly sentAtMs: number;
  /** When the final attempt was sent (service time runs from here). */
  readonly lastSentAtMs: number;
  /** When the final answer ended (body read) or failed. */
  readonly endAtMs: number;
  /** Retry-After values received (seconds), one per 429 that carried one. */
  readonly retryAfterS: readonly number[];
}

interface Attempt {
  readonly outcome: Outcome;
  readonly status?: number;
  readonly retryAfterS?: number;
}

/** Sends planned request `seq` (tagged on the wire as x-loadproof-seq / x-loadproof-attempt, for correlation). */
export type IdentifyFn = (text: string, seq: number) => Promise<RequestResult>;

export function createIdentify(settings: ApiClientSettings): IdentifyFn {
  const url = settings.baseUrl.replace(/\/+$/, '') + API_PATHS.identification;
  const wallTimeoutMs = settings.timeoutMs / settings.timeScale;

  const attempt = async (body: string, token: string, seq: number, attemptNo: number): Promise<Attempt> => {
    const controller = new AbortController();
    let deadlineHit = false;
    const timer = setTimeout(() => {
      deadlineHit = true;
      controller.abort();
    }, wallTimeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${token}`,
          'x-loadproof-seq': String(seq),
          'x-loadproof-attempt': String(attemptNo),
        },
        body,
        dispatcher: settings.dispatcher,
        signal: controller.signal,
      });
      const text = await res.body.text();
      const outcome = classifyStatus(res.statusCode);
      if (outcome === 'ok' && parseJsonObject(text) === undefined) return { outcome: 'malformed', status: res.statusCode };
      const retryAfterS = res.statusCode === 429 ? parseRetryAfterS(res.headers['retry-after']) : undefined;
      return { outcome, status: res.statusCode, ...(retryAfterS === undefined ? {} : { retryAfterS }) };
    } catch (error) {
      return { outcome: classifyError(error, deadlineHit) };
    } finally {
      clearTimeout(timer);
    }
  };

  return async (text, seq) => {
    const body = JSON.stringify({ text });
    const clock = settings.clock;
    const retryAfters: number[] = [];
    let attempts = 0;
    let renewedAfter401 = false;
    const sentAtMs = clock.nowMs();
    for (;;) {
      const token = await settings.tokens.get();
      const lastSentAtMs = clock.nowMs();
      attempts++;
      const result = await attempt(body, token, seq, attempts);
      if (result.retryAfterS !== undefined) retryAfters.push(result.retryAfterS);
      const done = (): RequestResult => ({
        outcome: result.outcome,
        ...(result.status === undefined ? {} : { status: result.status }),
        attempts,
        sentAtMs,
        lastSentAtMs,
        endAtMs: clock.nowMs(),
        retryAfterS: retryAfters,
      });
      if (result.status === 401 && !renewedAfter401) {
        // The token expired or was revoked under us: renew once, then send again.
        renewedAfter401 = true;
        settings.tokens.invalidate(token);
        continue;
      }
      if (result.outcome !== 'http_429' || settings.on429.policy === 'record') return done();
      const decision = nextRetry(settings.on429, attempts, result.retryAfterS, settings.rng);
      if (!decision.retry) return done();
      await sleepUntil(clock, clock.nowMs() + decision.delayMs);
    }
  };
}
