import { describe, expect, it } from 'vitest';

import { IDENTIFICATION_LIMITS } from '../spec/index.js';
import { bucketCapacity, retryAfterSeconds, TokenBucket } from './limiter.js';

const SPEC = {
  sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
  burstRpm: IDENTIFICATION_LIMITS.burstRpm,
  burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
};

/** Sends at a constant rate for up to `maxMinutes`; returns when the first 429 came (minutes), or undefined. */
function firstRejectionMinutes(rpm: number, maxMinutes: number): number | undefined {
  const bucket = new TokenBucket(SPEC, 0);
  const spacingMs = 60_000 / rpm;
  for (let i = 0; i * spacingMs < maxMinutes * 60_000; i++) {
    if (!bucket.tryTake(i * spacingMs)) return (i * spacingMs) / 60_000;
  }
  return undefined;
}

describe('TokenBucket with the spec limits', () => {
  it('has room for (200 − 100) × 5 requests above the refill, plus the first request', () => {
    expect(bucketCapacity(SPEC)).toBe(501);
  });

  it.each([
    { rpm: 100, expected: undefined, note: 'runs forever (checked for 24 h)' },
    { rpm: 200, expected: 5, note: 'first 429 after 5 minutes' },
    { rpm: 300, expected: 2.5, note: 'first 429 after 2.5 minutes' },
  ])('at $rpm rpm from full: $note', ({ rpm, expected }) => {
    const got = firstRejectionMinutes(rpm, 24 * 60);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(expected, 1);
  });

  it('gives a Retry-After computed from the refill: about 1 s at 100 rpm refill, 6 s at 10 rpm', () => {
    const drain = (sustainedRpm: number): TokenBucket => {
      const bucket = new TokenBucket({ sustainedRpm, burstRpm: sustainedRpm, burstMinutes: 1 }, 0);
      expect(bucket.tryTake(0)).toBe(true);
      expect(bucket.tryTake(0)).toBe(false);
      return bucket;
    };
    expect(retryAfterSeconds(drain(100).msUntilToken(0))).toBe(1);
    expect(retryAfterSeconds(drain(10).msUntilToken(0))).toBe(6);
    expect(retryAfterSeconds(drain(10).msUntilToken(2500))).toBe(4);
  });

  it('never says less than 1 s, and rounds up', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
  });
});
