import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.js';
import { nextRetry, parseRetryAfterS } from './retry.js';

const POLICY = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 5000 };

describe('nextRetry', () => {
  it('waits exactly Retry-After when the server sent it', () => {
    expect(nextRetry(POLICY, 1, 5, createRng(1))).toEqual({ retry: true, delayMs: 5000, source: 'retry-after' });
  });

  it('gives up when Retry-After asks for more than maxDelay, so a request ends within a known time', () => {
    expect(nextRetry(POLICY, 1, 6, createRng(1))).toEqual({ retry: false });
  });

  it.each([
    { attempt: 1, ceiling: 1000 },
    { attempt: 2, ceiling: 2000 },
    { attempt: 3, ceiling: 4000 },
  ])('backs off with full jitter in [0, $ceiling] ms after attempt $attempt', ({ attempt, ceiling }) => {
    const rng = createRng(attempt);
    let max = 0;
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 2000; i++) {
      const d = nextRetry(POLICY, attempt, undefined, rng);
      if (!d.retry) throw new Error('expected a retry');
      max = Math.max(max, d.delayMs);
      min = Math.min(min, d.delayMs);
    }
    expect(max).toBeLessThanOrEqual(ceiling);
    expect(max).toBeGreaterThan(0.95 * ceiling);
    expect(min).toBeLessThan(0.05 * ceiling);
  });

  it('caps the back-off at maxDelay', () => {
    const d = nextRetry({ ...POLICY, maxAttempts: 10 }, 8, undefined, { next: () => 0.999999 });
    expect(d).toMatchObject({ retry: true, source: 'backoff' });
    expect(d.retry && d.delayMs).toBeCloseTo(5000, 0);
  });

  it('gives up after maxAttempts attempts', () => {
    expect(nextRetry(POLICY, 4, 1, createRng(1))).toEqual({ retry: false });
  });
});

describe('parseRetryAfterS', () => {
  it.each([
    ['3', 3],
    [' 60 ', 60],
    [['5', '9'], 5],
    ['Wed, 21 Oct 2026 07:28:00 GMT', undefined],
    ['-1', undefined],
    ['1.5', undefined],
    [undefined, undefined],
  ])('%j → %s', (header, expected) => {
    expect(parseRetryAfterS(header as string | string[] | undefined)).toBe(expected);
  });
});
