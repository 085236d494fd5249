import { describe, expect, it } from 'vitest';

import { explainFirst429 } from './first-429.js';

const BUCKET = { capacityTokens: 501, refillRpm: 100, marginTokens: 2.7 };
/** Evenly spaced arrivals at `rpm` from `fromMs` for `minutes`. */
const arrivals = (rpm: number, fromMs: number, minutes: number): number[] =>
  Array.from({ length: rpm * minutes }, (_, i) => fromMs + (i * 60_000) / rpm);
const PHASES = [
  { name: 'step-200', startMs: 0, durationMs: 360_000 },
  { name: 'step-300', startMs: 360_000, durationMs: 120_000 },
];

describe('why the first 429 came where it came', () => {
  it('from a full bucket at 200 rpm the allowance is used up after 5 minutes: the replay says since when', () => {
    const planned = [...arrivals(200, 0, 6), ...arrivals(300, 360_000, 2)];
    // The service admitted every request until 5m0.3s, then refused the next.
    const admitted = planned.filter((t) => t < 300_300);
    const refused = planned.filter((t) => t >= 300_300);
    const first = explainFirst429(
      BUCKET,
      501,
      { admittedSentMs: admitted, refusedSentMs: refused, plannedMs: planned },
      PHASES,
    )!;
    expect(first.atS).toBeCloseTo(300.3, 6);
    expect(first.phase).toBe('step-200');
    expect(first.bucketTokens).toBeLessThan(1);
    // Used up (under 1 + the margin) with the 998th request or so: 501 + 100 a minute × 5 minutes = 1,001 tokens.
    expect(first.usedUpSinceS).toBeGreaterThan(297);
    expect(first.usedUpSinceS).toBeLessThanOrEqual(300.3);
    // The same replay over the plan: its first refusal is the plan's prediction.
    expect(first.predicted).toEqual({ atS: expect.closeTo(300.3, 1), phase: 'step-200' });
    // For the same request the plan's replay held what the service's did.
    expect(first.predictedTokens).toBeCloseTo(first.bucketTokens, 1);
  });

  it('a 429 while the replayed bucket still had tokens: nothing was used up, and the plan predicted none then', () => {
    const planned = arrivals(100, 0, 2);
    const first = explainFirst429(
      BUCKET,
      501,
      { admittedSentMs: planned.slice(0, 50), refusedSentMs: [planned[50]!], plannedMs: planned },
      PHASES,
    )!;
    expect(first.atS).toBe(30);
    expect(first.usedUpSinceS).toBeNull();
    expect(first.bucketTokens).toBeGreaterThan(400);
    expect(first.predicted).toBeNull();
    expect(first.predictedTokens).toBeGreaterThan(400);
  });

  it('a 429 while the bucket still held a token, but within the margin: used up as far as the timing can tell', () => {
    const planned = arrivals(200, 0, 6);
    // Refused a little early: the replay still has a token or two for it.
    const admitted = planned.filter((t) => t < 299_700);
    const first = explainFirst429(
      BUCKET,
      501,
      { admittedSentMs: admitted, refusedSentMs: [299_700], plannedMs: planned },
      PHASES,
    )!;
    expect(first.bucketTokens).toBeGreaterThanOrEqual(1);
    expect(first.bucketTokens).toBeLessThan(1 + BUCKET.marginTokens);
    expect(first.usedUpSinceS).not.toBeNull();
    expect(first.usedUpSinceS).toBeLessThan(299.7);
  });

  it('from an empty bucket (nothing known of the start) the allowance is used up from the first request', () => {
    const planned = arrivals(200, 0, 1);
    const first = explainFirst429(
      BUCKET,
      0,
      { admittedSentMs: planned.filter((_, i) => i % 2 === 0), refusedSentMs: [planned[1]!], plannedMs: planned },
      PHASES,
    )!;
    expect(first.atS).toBeCloseTo(0.3, 6);
    expect(first.bucketTokens).toBeLessThan(1);
    expect(first.usedUpSinceS).toBe(0);
  });

  it('null without a 429', () => {
    expect(
      explainFirst429(BUCKET, 501, { admittedSentMs: [1, 2], refusedSentMs: [], plannedMs: [1, 2] }, PHASES),
    ).toBeNull();
  });
});
