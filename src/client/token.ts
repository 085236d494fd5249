/**
 * The OAuth 2.0 client-credentials token: fetched before the first arrival (not counted as load),
 * cached, and renewed — at 90 % of its lifetime, or at once after the service rejects it with a
 * 401. Renewal is single-flight (concurrent callers share one call) and bounded, because every token
 * call reaches the customer's identity provider:
 *  - a lifetime under MIN_TRUSTED_LIFETIME_S is trusted as that floor (expires_in: 0.001 cannot make
 *    a token call before every request);
 *  - a failed renewal is retried with doubling back-off; while the old token still serves, requests
 *    keep using it;
 *  - the run is ended (onFatal, exit 4) when the token endpoint refuses the credentials (401/403)
 *    mid-run, when two tokens in a row are rejected by the service before either was accepted, when
 *    MAX_REJECTIONS tokens are rejected within REJECTION_WINDOW_MS (a service that rejects every
 *    other request must not get a token call per rejection), or when MAX_RENEWAL_FAILURES renewals
 *    in a row fail with no usable token left.
 * Lifetimes are model time (the clock given is the run's model clock). No secret is ever quoted.
 */
import { Interrupted, RunFailure } from '../core/index.js';
import { API_PATHS } from '../spec/index.js';
import { parseJsonObject } from './json.js';
import { smallRequest } from './small-request.js';
import { answerFailure, noAnswerFailure, TokenCallFailed } from './token-failures.js';
import { HEADER_SAFE, tokenRequestBody } from './token-request.js';
import type { TokenSettings } from './token-settings.js';

export type { TokenSettings } from './token-settings.js';

/** Renew when this fraction of the (trusted) lifetime has passed. */
const RENEW_AT = 0.9;
/** The shortest token lifetime trusted, model seconds: at most one proactive renewal per 27 s. */
const MIN_TRUSTED_LIFETIME_S = 30;
/** When a response carries no expires_in (the spec leaves token lifetime "not shown"). */
const DEFAULT_LIFETIME_S = 3600;
/** Back-off between failed renewals, model ms: 1 s, 2 s, 4 s, … up to a minute. */
const RENEW_BACKOFF_MS = { first: 1000, max: 60_000 } as const;
/** Renewals failing in a row, with no usable token left, before the run is ended. */
const MAX_RENEWAL_FAILURES = 5;
/** More tokens than this rejected with 401 within REJECTION_WINDOW_MS (model time) end the run. */
const MAX_REJECTIONS = 3;
const REJECTION_WINDOW_MS = 5 * 60_000;

interface HeldToken {
  readonly value: string;
  readonly renewAtMs: number;
  /** Past this (model ms), the token is not used any more. */
  readonly expiresAtMs: number;
  /** The service answered a request sent with it with a 2xx. */
  accepted: boolean;
  /** It was fetched because the service rejected the one before. */
  readonly afterRejection: boolean;
}

export class TokenProvider {
  private held: HeldToken | undefined;
  private pending: Promise<string> | undefined;
  private failure: RunFailure | undefined;
  private everHeld = false;
  private nextAfterRejection = false;
  private failuresInRow = 0;
  private retryAtMs = Number.NEGATIVE_INFINITY;
  private fetches = 0;
  private warnedShortLifetime = false;
  /** When tokens were rejected (model ms), newest last, within REJECTION_WINDOW_MS. */
  private readonly rejections: number[] = [];
  /** Aborted by the run's stop signal or by close(). */
  private readonly stop = new AbortController();

  constructor(private readonly settings: TokenSettings) {
    const signal = settings.signal;
    if (signal?.aborted === true) this.stop.abort();
    else signal?.addEventListener('abort', () => this.stop.abort(), { once: true });
  }

  /** Ends every wait and renewal (the run is over): nothing of the provider keeps the process alive. */
  close(): void {
    this.stop.abort();
  }

  /** How many times the token endpoint was called. */
  get fetchCount(): number {
    return this.fetches;
  }

  /**
   * The token in hand when one can be used now without waiting (get() would return it at once), else
   * undefined: a request's fast path, without a promise.
   */
  current(): string | undefined {
    if (this.failure !== undefined || this.stop.signal.aborted) return undefined;
    const now = this.settings.clock.nowMs();
    const held = this.held;
    if (held === undefined || now >= held.renewAtMs) return undefined;
    return held.value;
  }

  /** A valid token, fetching or renewing it when needed. Rejects when the run was stopped or no token can be had. */
  async get(): Promise<string> {
    if (this.failure !== undefined) throw this.failure;
    this.throwIfStopped();
    const now = this.settings.clock.nowMs();
    const held = this.held;
    if (held !== undefined && now < held.renewAtMs) return held.value;
    if (held !== undefined && now < held.expiresAtMs) {
      // Renew in the background; the current token serves meanwhile.
      if (this.pending === undefined && now >= this.retryAtMs) this.renew().catch(() => {});
      return held.value;
    }
    return this.renew();
  }

  /** The service rejected `token` with a 401: renew it (once, however many requests saw the 401). */
  rejected(token: string): void {
    const held = this.held;
    if (held === undefined || held.value !== token) return;
    const now = this.settings.clock.nowMs();
    this.rejections.push(now);
    while (this.rejections[0]! <= now - REJECTION_WINDOW_MS) this.rejections.shift();
    if (this.rejections.length > MAX_REJECTIONS) {
      this.fail(
        new RunFailure(
          'AUTH_FAILED',
          `the service rejected ${this.rejections.length} access tokens with 401 within ${REJECTION_WINDOW_MS / 60_000} minutes, although it had accepted them: renewing each time would call the token endpoint without bound; the run was stopped`,
          'check the token lifetime and the credentials’ permissions with the service’s support',
        ),
      );
      return;
    }
    if (held.afterRejection && !held.accepted) {
      this.fail(
        new RunFailure(
          'AUTH_FAILED',
          'the service rejected two access tokens in a row with 401, the second fresh from its token endpoint, before accepting either: the credentials are not allowed to call it, or it does not accept its own tokens; the run was stopped',
          'check the credentials’ permissions with the service’s support',
        ),
      );
      return;
    }
    this.held = undefined;
    this.nextAfterRejection = true;
    // A rejection asks for a new token now, whatever the back-off of an earlier failure said.
    this.retryAtMs = Number.NEGATIVE_INFINITY;
  }

  /**
   * The service answered a request sent with `token` with a 2xx (a 429 or 5xx may come before any check of the token).
   */
  accepted(token: string): void {
    if (this.held?.value === token) this.held.accepted = true;
  }

  private renew(): Promise<string> {
    this.pending ??= this.obtain().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Fetches until a token comes, the run stops, or the failure is final. */
  private async obtain(): Promise<string> {
    const clock = this.settings.clock;
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      if (clock.nowMs() < this.retryAtMs) await this.sleepUntil(this.retryAtMs);
      try {
        return await this.fetchOnce();
      } catch (error) {
        if (!(error instanceof TokenCallFailed)) throw error;
        // The first call, before any load: its failure stops the run before anything is sent.
        if (!this.everHeld) throw error.failure;
        const midRun = `cannot renew the access token mid-run: ${error.failure.message} The run was stopped.`;
        if (error.refused)
          this.fail(new RunFailure('AUTH_FAILED', midRun, 'everything measured until then is in the report'));
        else {
          this.failuresInRow++;
          this.retryAtMs =
            clock.nowMs() + Math.min(RENEW_BACKOFF_MS.max, RENEW_BACKOFF_MS.first * 2 ** (this.failuresInRow - 1));
          const usable = this.held !== undefined && clock.nowMs() < this.held.expiresAtMs;
          if (usable) throw error.failure;
          if (this.failuresInRow >= MAX_RENEWAL_FAILURES) {
            this.fail(
              new RunFailure(
                error.failure.code as 'TARGET_UNREACHABLE',
                `${midRun.replace(' The run was stopped.', '')} (${this.failuresInRow} attempts in a row, with back-off); the run was stopped.`,
                'everything measured until then is in the report',
              ),
            );
          }
        }
      }
    }
  }

  private fail(failure: RunFailure): void {
    if (this.failure !== undefined) return;
    this.failure = failure;
    this.held = undefined;
    this.settings.onFatal?.(failure);
  }

  private throwIfStopped(): void {
    if (this.stop.signal.aborted) throw new Interrupted('the run was stopped while waiting for an access token');
  }

  /** Waits on the model clock, or until the run stops (Interrupted). */
  private sleepUntil(atMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const signal = this.stop.signal;
      const onStop = (): void => {
        cancel();
        reject(new Interrupted('the run was stopped while waiting for an access token'));
      };
      const cancel = this.settings.clock.setTimer(atMs, () => {
        signal.removeEventListener('abort', onStop);
        resolve();
      });
      if (signal.aborted) onStop();
      else signal.addEventListener('abort', onStop, { once: true });
    });
  }

  private async fetchOnce(): Promise<string> {
    const s = this.settings;
    this.throwIfStopped();
    const url = s.baseUrl.replace(/\/+$/, '') + API_PATHS.token;
    const startMs = s.clock.nowMs();
    this.fetches++;
    const { status, text, location } = await this.post(url, startMs);
    s.onFetch?.(s.clock.nowMs() - startMs, status);
    const parsed = parseJsonObject(text);
    const token = parsed?.access_token;
    // Checked where it enters: a token a header cannot carry is never used (nothing from a server is written
    // into a request), so no request is handed a token it cannot be sent with (see answerFailure).
    if (status === 200 && typeof token === 'string' && HEADER_SAFE.test(token))
      return this.keep(token, parsed!.expires_in, startMs);
    throw answerFailure(url, { status, parsed, location }, s);
  }

  /** Sends the token request; a call that gets no answer is a TokenCallFailed (TARGET_UNREACHABLE). */
  private async post(url: string, startMs: number): Promise<{ status: number; text: string; location: unknown }> {
    const s = this.settings;
    const timeout = AbortSignal.timeout(Math.max(1, Math.round(s.timeoutMs)));
    try {
      const res = await smallRequest(s.permit, url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: tokenRequestBody(s),
        ...(s.ca === undefined ? {} : { ca: s.ca }),
        signal: AbortSignal.any([timeout, this.stop.signal]),
        proxy: s.proxy,
      });
      return { status: res.status, text: res.text, location: res.headers.location };
    } catch (error) {
      s.onFetch?.(s.clock.nowMs() - startMs, 'failed');
      this.throwIfStopped();
      throw noAnswerFailure(url, error, timeout.aborted);
    }
  }

  /** Holds a new token, trusting at least MIN_TRUSTED_LIFETIME_S of its lifetime. */
  private keep(token: string, expiresIn: unknown, startMs: number): string {
    const s = this.settings;
    const declaredS =
      typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S;
    if (declaredS < MIN_TRUSTED_LIFETIME_S && !this.warnedShortLifetime) {
      this.warnedShortLifetime = true;
      s.onWarning?.(
        `the token endpoint says tokens last ${declaredS} s; loadproof renews at most once per ${RENEW_AT * MIN_TRUSTED_LIFETIME_S} s (it trusts at least ${MIN_TRUSTED_LIFETIME_S} s), and renews at once when the service answers 401`,
      );
    }
    const lifetimeMs = Math.max(declaredS, MIN_TRUSTED_LIFETIME_S) * 1000;
    s.onToken?.(token);
    this.held = {
      value: token,
      renewAtMs: startMs + lifetimeMs * RENEW_AT,
      expiresAtMs: startMs + lifetimeMs,
      accepted: false,
      afterRejection: this.nextAfterRejection,
    };
    this.nextAfterRejection = false;
    this.everHeld = true;
    this.failuresInRow = 0;
    this.retryAtMs = Number.NEGATIVE_INFINITY;
    return token;
  }
}
