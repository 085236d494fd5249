/**
 * The 429 retry policy, pure: after attempt n (1-based) got a 429, wait
 *  - jittered exponential back-off ("full jitter"): uniform in [0, min(maxDelay, baseDelay · 2^(n−1))];
 *  - when the server sent Retry-After, that many seconds first (the spec: the minimum wait before a
 *    retry), plus the same jittered back-off above it, the whole wait capped at maxDelay. Waiting
 *    exactly Retry-After brings back together every request refused together (a server sends them
 *    all the same value) to be refused together again: the herd the spec's back-off is there to prevent;
 * and give up once `maxAttempts` attempts were made, or when Retry-After asks for more than
 * maxDelay (so every request ends within a known time, which the guard's planned end relies on).
 * Times are model milliseconds.
 */
import type { Rng } from '../core/index.js';

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly source: 'retry-after' | 'backoff' }
  | { readonly retry: false };

/** Parses Retry-After as whole seconds (the spec's form); an HTTP-date or junk yields undefined. */
export function parseRetryAfterS(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

export function nextRetry(
  policy: RetryPolicy,
  attemptsMade: number,
  retryAfterS: number | undefined,
  rng: Rng,
): RetryDecision {
  if (attemptsMade >= policy.maxAttempts) return { retry: false };
  const minimumMs = retryAfterS === undefined ? 0 : retryAfterS * 1000;
  if (minimumMs > policy.maxDelayMs) return { retry: false };
  const ceilingMs = Math.min(policy.maxDelayMs - minimumMs, policy.baseDelayMs * 2 ** (attemptsMade - 1));
  return {
    retry: true,
    delayMs: minimumMs + rng.next() * ceilingMs,
    source: retryAfterS === undefined ? 'backoff' : 'retry-after',
  };
}
