import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import { nextRetry, parseRetryAfterS } from './retry.js';

const POLICY = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 5000 };

describe('nextRetry', () => {
  it('waits Retry-After at least, plus jittered back-off that grows with the attempts, within maxDelay', () => {
    const rng = createRng(3);
    const delays = (attempt: number): number[] =>
      Array.from({ length: 2000 }, () => {
        const d = nextRetry({ ...POLICY, maxDelayMs: 60_000 }, attempt, 2, rng);
        if (!d.retry) throw new Error('expected a retry');
        expect(d.source).toBe('retry-after');
        return d.delayMs;
      });
    for (const [attempt, ceilingMs] of [
      [1, 1000],
      [2, 2000],
      [3, 4000],
    ] as const) {
      const d = delays(attempt);
      expect(Math.min(...d)).toBeGreaterThanOrEqual(2000);
      expect(Math.min(...d)).toBeLessThan(2000 + 0.05 * ceilingMs);
      expect(Math.max(...d)).toBeLessThanOrEqual(2000 + ceilingMs);
      expect(Math.max(...d)).toBeGreaterThan(2000 + 0.95 * ceilingMs);
    }
    // Near maxDelay the jitter shrinks to what is left: the wait never exceeds maxDelay.
    for (let i = 0; i < 200; i++) {
      const d = nextRetry(POLICY, 3, 5, rng);
      expect(d).toEqual({ retry: true, delayMs: 5000, source: 'retry-after' });
    }
  });

  it('spreads requests refused together with the same Retry-After instead of sending them back together', () => {
    const rng = createRng(9);
    const backAt = Array.from({ length: 100 }, () => {
      const d = nextRetry(POLICY, 1, 1, rng);
      return d.retry ? Math.floor(d.delayMs / 100) : -1;
    });
    const mostIn100Ms = Math.max(...[...new Set(backAt)].map((bin) => backAt.filter((b) => b === bin).length));
    expect(mostIn100Ms).toBeLessThanOrEqual(25);
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
