/**
 * The OAuth 2.0 client-credentials token: fetched before the first arrival (not counted as load),
 * cached, renewed at 90 % of its lifetime, and fetched again once after a 401. Concurrent callers
 * share one fetch. Lifetimes are model time (the clock given is the run's model clock).
 * A failure stops the run with exit 4 and says what the status means; no secret is ever quoted.
 */
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { Clock } from '../core/clock.js';
import { RunFailure } from '../core/errors.js';
import { redact } from '../core/redact.js';
import { API_PATHS, GRANT_TYPE } from '../spec/index.js';
import { classifyError } from './classify.js';
import { parseJsonObject } from './json.js';

export interface TokenSettings {
  readonly baseUrl: string;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the credentials came from, for messages (e.g. "$LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET"). */
  readonly credentialSource: string;
  readonly dispatcher: Dispatcher;
  /** The run's model clock. */
  readonly clock: Clock;
  /** Wall-clock deadline of the token call (ms). */
  readonly timeoutMs: number;
  /** Called after every fetch with its duration on the model clock, for the report (not part of the load). */
  readonly onFetch?: (latencyMs: number, status: number | 'failed') => void;
  /** Called with each new access token before it is used, so it can be masked in every output. */
  readonly onToken?: (token: string) => void;
}

/** Renew when this fraction of the lifetime has passed. */
const RENEW_AT = 0.9;

export class TokenProvider {
  private token: string | undefined;
  private renewAtMs = 0;
  private pending: Promise<string> | undefined;
  private fetches = 0;

  constructor(private readonly settings: TokenSettings) {}

  /** How many times the token endpoint was called. */
  get fetchCount(): number {
    return this.fetches;
  }

  /** A valid token, fetching or renewing it when needed. */
  async get(): Promise<string> {
    if (this.token !== undefined && this.settings.clock.nowMs() < this.renewAtMs) return this.token;
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Drops `token` after a 401, so the next get() fetches a new one (once, even if many saw the 401). */
  invalidate(token: string): void {
    if (this.token === token) this.token = undefined;
  }

  private async fetch(): Promise<string> {
    const s = this.settings;
    const url = s.baseUrl.replace(/\/+$/, '') + API_PATHS.token;
    const startMs = s.clock.nowMs();
    this.fetches++;
    const body = JSON.stringify({ client_id: s.clientId, client_secret: s.clientSecret, audience: s.audience, grant_type: GRANT_TYPE });
    let status: number;
    let text: string;
    try {
      const res = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        dispatcher: s.dispatcher,
        signal: AbortSignal.timeout(s.timeoutMs),
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      s.onFetch?.(s.clock.nowMs() - startMs, 'failed');
      const outcome = classifyError(error, false);
      const code = (error as { code?: string }).code ?? (error as Error).name;
      throw new RunFailure('TARGET_UNREACHABLE', `cannot get a token from ${url}: ${outcome} (${code})`, 'check target.baseUrl and that the service (or mock) is running');
    }
    s.onFetch?.(s.clock.nowMs() - startMs, status);
    const parsed = parseJsonObject(text);
    if (status === 200 && typeof parsed?.access_token === 'string') {
      const lifetimeS = typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 3600;
      s.onToken?.(parsed.access_token);
      this.token = parsed.access_token;
      this.renewAtMs = startMs + lifetimeS * 1000 * RENEW_AT;
      return parsed.access_token;
    }
    throw new RunFailure('AUTH_FAILED', redact(this.explain(status, parsed), [s.clientSecret]), 'no load was sent');
  }

  /** The spec's meaning of each token-call status, in words (shared/spec/api-spec.md, "Authentication"). */
  private explain(status: number, body: Record<string, unknown> | undefined): string {
    const s = this.settings;
    const server = body?.error === undefined ? '' : ` The server said: ${String(body.error)}${body.error_description === undefined ? '' : ` — ${String(body.error_description)}`}.`;
    const meaning: Record<number, string> = {
      415: 'the token endpoint did not accept the body as JSON (415 Unsupported Media Type)',
      401: `the client_id or client_secret is wrong (401 Unauthorized); they came from ${s.credentialSource}`,
      403: `the audience "${s.audience}" is missing or not this service's (403 Forbidden); set target.audience to the service's base URL`,
      400: 'the token request was malformed (400 Bad Request)',
    };
    const what = meaning[status] ?? (status === 200 ? 'the token response had no access_token (200)' : `the token call failed with status ${status}`);
    return `cannot authenticate: ${what}.${server}`;
  }
}
