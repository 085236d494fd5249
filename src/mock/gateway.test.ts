import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Fleet } from './fleet.js';
import { Gateway, type GatewayLimits, type GatewayOutcome, releaseTimeMs } from './gateway.js';

/** A fleet whose every request takes `serviceMs`, with `slots` slots in all. */
function setup(limits: Partial<GatewayLimits>, serviceMs: number, slots = 1000) {
  const clock = new ManualClock();
  const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: slots }, () => serviceMs, clock);
  const gateway = new Gateway({ rate: null, maxInFlight: 128, queueLimit: 4, timeoutMs: 15_000, ...limits }, fleet, clock);
  const outcomes: GatewayOutcome[] = [];
  const submit = (n: number): void => {
    for (let i = 0; i < n; i++) gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => outcomes.push(o));
  };
  return { clock, gateway, outcomes, submit };
}

describe('Gateway', () => {
  it('processes 128 at once and queues the 129th', () => {
    const { gateway, submit } = setup({}, 1000);
    submit(128);
    expect(gateway.snapshot()).toMatchObject({ inFlight: 128, queued: 0 });
    submit(1);
    expect(gateway.snapshot()).toMatchObject({ inFlight: 128, queued: 1 });
  });

  it('answers 429 when the queue is full, with Retry-After from the earliest in-flight end', () => {
    const { clock, gateway, outcomes, submit } = setup({}, 3200);
    submit(128 + 4);
    clock.advanceTo(1000);
    submit(1);
    expect(outcomes).toEqual([{ kind: 'concurrency_limited', retryAfterS: 3 }]); // ends at 3.2 s: 2.2 s away
    expect(gateway.snapshot()).toMatchObject({ inFlight: 128, queued: 4, concurrencyLimited: 1 });
  });

  it('serves a queued request when a slot frees, counting its wait', () => {
    const { clock, outcomes, submit } = setup({ maxInFlight: 1 }, 500);
    submit(2);
    clock.advanceTo(2000);
    expect(outcomes).toEqual([
      { kind: 'ok', queuedMs: 0, serviceMs: 500, heldMs: 0, totalMs: 500, modelMs: 500 },
      { kind: 'ok', queuedMs: 500, serviceMs: 500, heldMs: 0, totalMs: 1000, modelMs: 1000 },
    ]);
  });

  it('answers 504 at exactly 15 s in the server, whether queued or in service, and frees the slot', () => {
    const { clock, gateway, outcomes, submit } = setup({ maxInFlight: 1 }, 20_000);
    submit(2);
    clock.advanceTo(14_999);
    expect(outcomes).toEqual([]);
    clock.advanceTo(15_000);
    expect(outcomes).toEqual([
      { kind: 'timeout', totalMs: 15_000, modelMs: 15_000 },
      { kind: 'timeout', totalMs: 15_000, modelMs: 15_000 },
    ]);
    expect(gateway.snapshot()).toMatchObject({ inFlight: 0, queued: 0, timedOut: 2 });
  });

  it('answers 429 when the client bucket is empty, and does not spend quota on concurrency 429s', () => {
    const clock = new ManualClock();
    const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: 10 }, () => 60_000, clock);
    const gateway = new Gateway({ rate: { sustainedRpm: 6, burstRpm: 6, burstMinutes: 1 }, maxInFlight: 1, queueLimit: 0, timeoutMs: 15_000 }, fleet, clock);
    const outcomes: GatewayOutcome[] = [];
    const send = (): void => gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => outcomes.push(o));
    send(); // takes the only token
    send(); // bucket empty: 10 s per token at 6 rpm
    expect(outcomes).toEqual([{ kind: 'rate_limited', retryAfterS: 10 }]);
    clock.advanceTo(10_000);
    send(); // a token, but the single slot is busy and there is no queue: 429, token given back
    expect(outcomes[1]).toMatchObject({ kind: 'concurrency_limited' });
    expect(gateway.bucketLevel('c')).toBeCloseTo(1, 5);
  });

  it('holds responses ready inside a stall window until the window ends', () => {
    const stall = { periodMs: 10_000, durationMs: 2000, offsetMs: 8000 };
    expect(releaseTimeMs(7999, stall)).toBe(7999);
    expect(releaseTimeMs(8000, stall)).toBe(10_000);
    expect(releaseTimeMs(9500, stall)).toBe(10_000);
    expect(releaseTimeMs(10_000, stall)).toBe(10_000);
    expect(releaseTimeMs(18_500, stall)).toBe(20_000);
    expect(releaseTimeMs(1234, null)).toBe(1234);
  });
});
