/**
 * The 429 retry policy, pure: after attempt n (1-based) got a 429, wait
 *  - Retry-After seconds when the server sent one (the spec: the minimum wait before a retry);
 *  - otherwise exponential back-off with full jitter: uniform in [0, min(maxDelay, baseDelay · 2^(n−1))];
 * and give up once `maxAttempts` attempts were made, or when Retry-After asks for more than
 * maxDelay (so every request ends within a known time, which the guard's planned end relies on).
 * Times are model milliseconds.
 */
import type { Rng } from '../core/rng.js';

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export type RetryDecision = { readonly retry: true; readonly delayMs: number; readonly source: 'retry-after' | 'backoff' } | { readonly retry: false };

/** Parses Retry-After as whole seconds (the spec's form); an HTTP-date or junk yields undefined. */
export function parseRetryAfterS(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

export function nextRetry(policy: RetryPolicy, attemptsMade: number, retryAfterS: number | undefined, rng: Rng): RetryDecision {
  if (attemptsMade >= policy.maxAttempts) return { retry: false };
  if (retryAfterS !== undefined) return retryAfterS * 1000 <= policy.maxDelayMs ? { retry: true, delayMs: retryAfterS * 1000, source: 'retry-after' } : { retry: false };
  const ceilingMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attemptsMade - 1));
  return { retry: true, delayMs: rng.next() * ceilingMs, source: 'backoff' };
}
