/**
 * The few calls of a one-shot de-identification or a preflight, each a small request of its own
 * (node:http): a token, a Normalize session, identification and obfuscation. Every call is recorded
 * (endpoint, status, wall ms) for the caller to show. A 429 is waited out (Retry-After, at most
 * MAX_RETRY_WAIT_S) and sent again, up to MAX_ATTEMPTS in all; any other status is an ApiCallError.
 */
import type { RunFailure, SendPermit } from '../core/index.js';
import { API_PATHS, type ApiEndpoint } from '../spec/index.js';
import {
  type ChainCalls,
  ChainError,
  type FoundEntity,
  type IdentifyAnswer,
  type ObfuscateAnswer,
  obfuscationOutput,
} from './chain-answers.js';
import type { HttpProxy } from './http1/proxy-env.js';
import { AnswerTooLargeError, MAX_OBFUSCATION_ANSWER_BYTES } from './http1/response.js';
import { ProxyTunnelError } from './http1/tunnel.js';
import { parseJsonObject } from './json.js';
import { describeRedirect, isRedirect } from './redirect.js';
import { parseRetryAfterS } from './retry.js';
import { smallRequest, type SmallResponse } from './small-request.js';
import { tlsFailure } from './tls-failure.js';
import { HEADER_SAFE, tokenRequestBody } from './token-request.js';

export interface ApiTarget {
  /** The guard's permit to send to baseUrl. */
  readonly permit: SendPermit;
  readonly baseUrl: string;
  /** The proxy to reach baseUrl through, if any. */
  readonly proxy?: HttpProxy | undefined;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** A private CA (PEM) trusted besides Node's own (--ca, target.tls.ca). */
  readonly ca?: string | undefined;
}

export interface CallRecord {
  readonly endpoint: ApiEndpoint;
  /** The final status, or null when no answer came. */
  readonly status: number | null;
  /** Wall ms from the first send to the final answer. */
  readonly latencyMs: number;
  readonly attempts: number;
  /** The 429 answers without a Retry-After of whole seconds, which the spec requires on every 429. */
  readonly without429RetryAfter: number;
}

/** A call that did not answer 2xx (after 429s were waited out), or did not answer at all. */
export class ApiCallError extends Error {
  constructor(
    readonly endpoint: ApiEndpoint,
    readonly status: number | null,
    message: string,
    /** The target's TLS refused the call (a certificate, HTTP/2 only): what to tell, with its own code. */
    readonly failure?: RunFailure,
  ) {
    super(message);
  }
}

export const MAX_ATTEMPTS = 3;
export const MAX_RETRY_WAIT_S = 30;

export interface ApiSession {
  readonly target: ApiTarget;
  /** Per call, wall ms. */
  readonly timeoutMs: number;
  /** Called after each call. */
  readonly onCall?: (call: CallRecord) => void;
  /** Called with the access token as soon as it is known, so that every output can mask it. */
  readonly onToken?: (token: string) => void;
}

/** Sends one call, waiting out 429s; resolves to the 2xx answer (else an ApiCallError). */
export async function call(
  session: ApiSession,
  endpoint: ApiEndpoint,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<SmallResponse> {
  const url = session.target.baseUrl.replace(/\/+$/, '') + API_PATHS[endpoint];
  const started = performance.now();
  let attempts = 0;
  let without429RetryAfter = 0;
  const record = (status: number | null): void =>
    session.onCall?.({ endpoint, status, latencyMs: performance.now() - started, attempts, without429RetryAfter });
  for (;;) {
    attempts++;
    let res: SmallResponse;
    try {
      // Obfuscation's answer holds a whole document: its cap is its own (one call at a time here).
      const maxBytes = endpoint === 'obfuscation' ? { maxBytes: MAX_OBFUSCATION_ANSWER_BYTES } : {};
      res = await smallRequest(session.target.permit, url, {
        ...init,
        ...maxBytes,
        ...(session.target.ca === undefined ? {} : { ca: session.target.ca }),
        signal: AbortSignal.timeout(Math.max(1, Math.round(session.timeoutMs))),
        proxy: session.target.proxy,
      });
    } catch (error) {
      record(null);
      // The service did answer: too large to read is not "no answer".
      if (error instanceof AnswerTooLargeError)
        throw new ApiCallError(endpoint, null, `${endpoint}: the answer from ${url} ${error.message}`);
      const tls = tlsFailure(url, error);
      if (tls !== undefined) throw new ApiCallError(endpoint, null, `${endpoint}: ${tls.message}`, tls);
      const code = (error as { code?: string }).code ?? (error as Error).name;
      const why = error instanceof ProxyTunnelError ? error.message : `(${code})`;
      throw new ApiCallError(endpoint, null, `${endpoint}: no answer from ${url} ${why}`);
    }
    const retryAfterS = res.status === 429 ? parseRetryAfterS(res.headers['retry-after']) : undefined;
    if (res.status === 429 && retryAfterS === undefined) without429RetryAfter++;
    if (res.status === 429 && attempts < MAX_ATTEMPTS) {
      const waitS = Math.min(MAX_RETRY_WAIT_S, retryAfterS ?? 2 ** attempts);
      await new Promise((resolve) => setTimeout(resolve, waitS * 1000));
      continue;
    }
    record(res.status);
    if (isRedirect(res.status))
      throw new ApiCallError(
        endpoint,
        res.status,
        `${endpoint}: ${url} answered ${describeRedirect(res.status, res.headers.location, url)}; not followed: loadproof sends only to target.baseUrl`,
      );
    if (res.status < 200 || res.status > 299) {
      const code = parseJsonObject(res.text)?.error;
      throw new ApiCallError(
        endpoint,
        res.status,
        `${endpoint}: ${url} answered ${res.status}${typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : ''}${attempts > 1 ? ` after ${attempts} attempts` : ''}`,
      );
    }
    return res;
  }
}

/** The body as a JSON object, or a ChainError naming the endpoint and what was expected. */
function jsonObject(endpoint: ApiEndpoint, res: SmallResponse, expected: string): Record<string, unknown> {
  const value = parseJsonObject(res.text);
  if (value === undefined)
    throw new ChainError(`${endpoint}: the answer (${res.status}) is not a JSON object; expected ${expected}`);
  return value;
}

/** An access token for `target` (client credentials, JSON body, as the spec says). */
export async function fetchToken(session: ApiSession): Promise<string> {
  const { target } = session;
  const body = tokenRequestBody(target);
  const res = await call(session, 'token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  const parsed = parseJsonObject(res.text);
  const token = parsed?.access_token;
  // An answer without a usable token is an authentication failure (a token ApiCallError with its status), as in run,
  // probe and check.
  if (typeof token !== 'string' || token === '') {
    const what =
      parsed === undefined
        ? 'is not a JSON object'
        : token === undefined
          ? 'has no access_token'
          : `has an access_token that is not a non-empty string (${token === null ? 'null' : typeof token})`;
    throw new ApiCallError(
      'token',
      res.status,
      `token: the answer (${res.status}) ${what}; expected {"access_token": "…"}`,
    );
  }
  // An authentication failure where the token enters (not a request that then "gets no answer"): never sent.
  if (!HEADER_SAFE.test(token))
    throw new ApiCallError(
      'token',
      res.status,
      `token: the access_token (${token.length} characters, not shown) holds characters a header cannot carry (only visible ASCII, RFC 6750); it was not sent`,
    );
  session.onToken?.(token);
  return token;
}

/** The chain's calls over HTTP with `token`; `style` is the obfuscation's (tag or mask). */
export function httpChainCalls(session: ApiSession, token: string, style: 'tag' | 'mask'): ChainCalls {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  return {
    async identify(text): Promise<IdentifyAnswer> {
      const res = await call(session, 'identification', { method: 'POST', headers, body: JSON.stringify({ text }) });
      const body = jsonObject('identification', res, '{"entities": [{"type", "start", "end"}, …]}');
      if (!Array.isArray(body.entities)) throw new ChainError('identification: the answer has no "entities" array');
      const entities = body.entities.map((e: unknown, i: number): FoundEntity => {
        const { type, start, end, score } = (e ?? {}) as Record<string, unknown>;
        if (typeof type !== 'string' || typeof start !== 'number' || typeof end !== 'number') {
          throw new ChainError(
            `identification: entities[${i}]: expected {"type": string, "start": integer, "end": integer}`,
          );
        }
        return typeof score === 'number' ? { type, start, end, score } : { type, start, end };
      });
      return { entities, truncated: body.truncated === true };
    },
    async obfuscate(text, entities): Promise<ObfuscateAnswer> {
      const spans = entities.map(({ type, start, end }) => ({ type, start, end }));
      const res = await call(session, 'obfuscation', {
        method: 'POST',
        headers,
        body: JSON.stringify({ text, entities: spans, style }),
      });
      const body = jsonObject('obfuscation', res, '{"text": …, "replacements": […]}');
      const output = obfuscationOutput(body);
      if (output === undefined) throw new ChainError('obfuscation: the answer has no "text" string');
      return output;
    },
  };
}
