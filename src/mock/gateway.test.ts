import { describe, expect, it } from 'vitest';

import { ManualClock } from '../core/clock.js';
import { Fleet } from './fleet.js';
import { Gateway, type GatewayLimits, type GatewayOutcome, releaseTimeMs } from './gateway.js';

/** A fleet whose every request takes `serviceMs`, with `slots` slots in all. */
function setup(limits: Partial<GatewayLimits>, serviceMs: number, slots = 1000) {
  const clock = new ManualClock();
  const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: slots }, () => serviceMs, clock);
  const gateway = new Gateway(
    { rate: null, maxInFlight: 128, queueLimit: 4, timeoutMs: 15_000, ...limits },
    fleet,
    clock,
  );
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
    const gateway = new Gateway(
      { rate: { sustainedRpm: 6, burstRpm: 6, burstMinutes: 1 }, maxInFlight: 1, queueLimit: 0, timeoutMs: 15_000 },
      fleet,
      clock,
    );
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

describe('Gateway arrivals at a given time (a time-scaled mock running behind the real clock)', () => {
  it("takes a request at its arrival time, in its place among the model's events, not when it was handed over", () => {
    const { clock, gateway, outcomes } = setup({ maxInFlight: 1 }, 500);
    const tagged: string[] = [];
    const submitAt = (tag: string, atMs: number): void =>
      gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => (outcomes.push(o), tagged.push(tag)), atMs);
    submitAt('later', 300); // handed over first, arrives second
    submitAt('earlier', 100);
    expect(gateway.snapshot()).toMatchObject({ admitted: 0 }); // neither has arrived yet (the clock is at 0)
    clock.advanceTo(2000);
    expect(tagged).toEqual(['earlier', 'later']);
    // 'earlier' in service 100–600; 'later' arrived at 300 and waited for the one slot until 600.
    expect(outcomes).toEqual([
      { kind: 'ok', queuedMs: 0, serviceMs: 500, heldMs: 0, totalMs: 500, modelMs: 500 },
      { kind: 'ok', queuedMs: 300, serviceMs: 500, heldMs: 0, totalMs: 800, modelMs: 800 },
    ]);
  });

  it('takes a request whose arrival time has passed now, and one not yet arrived when stopped never', () => {
    const { clock, gateway, outcomes } = setup({}, 100);
    clock.advanceTo(1000);
    gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => outcomes.push(o), 900);
    expect(gateway.snapshot()).toMatchObject({ admitted: 1 });
    gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => outcomes.push(o), 1500);
    gateway.stop();
    clock.advanceTo(5000);
    expect(gateway.snapshot()).toMatchObject({ admitted: 1 });
  });
});

describe('Gateway timeouts', () => {
  /**
   * A ManualClock that tells how many timers it holds: set and not yet due, cancelled or not (a cancelled one is held,
   * with what its callback holds, until its time).
   */
  function countingClock() {
    const clock = new ManualClock();
    const dueTimes: number[] = [];
    const counting = {
      nowMs: () => clock.nowMs(),
      setTimer: (atMs: number, fn: () => void) => {
        dueTimes.push(atMs);
        return clock.setTimer(atMs, fn);
      },
      held: () => dueTimes.filter((at) => at > clock.nowMs()).length,
    };
    return { clock, counting };
  }

  it('holds no timer per request: 1,000 answered at once leave at most one timer behind', () => {
    const { clock, counting } = countingClock();
    const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: 10_000 }, () => 0, counting);
    const gateway = new Gateway({ rate: null, maxInFlight: 10_000, queueLimit: 0, timeoutMs: 15_000 }, fleet, counting);
    const outcomes: GatewayOutcome[] = [];
    for (let i = 0; i < 1000; i++) {
      clock.advanceBy(1);
      gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => outcomes.push(o));
    }
    expect(outcomes).toHaveLength(1000);
    expect(outcomes.every((o) => o.kind === 'ok')).toBe(true);
    // Each timer held keeps its request's callback (and so its response) alive until its time: 15 s of requests at full
    // rate.
    expect(counting.held()).toBeLessThanOrEqual(1);
  });

  it('times out each request at its own deadline, in arrival order, whatever finished before it', () => {
    const clock = new ManualClock();
    // The service time is the request's input tokens (model ms).
    const fleet = new Fleet(
      { minReplicas: 1, maxReplicas: 1, slotsPerReplica: 100 },
      (work) => work.inputTokens,
      clock,
    );
    const gateway = new Gateway({ rate: null, maxInFlight: 100, queueLimit: 0, timeoutMs: 15_000 }, fleet, clock);
    const outcomes: Array<[number, GatewayOutcome]> = [];
    const send = (atMs: number, serviceMs: number): void => {
      clock.advanceTo(atMs);
      gateway.submit('c', { inputTokens: serviceMs, outputTokens: 0 }, (o) => outcomes.push([clock.nowMs(), o]));
    };
    send(0, 100); // answered at 100
    send(50, 60_000); // times out at 15,050
    send(70, 200); // answered at 270
    send(80, 60_000); // times out at 15,080
    clock.advanceTo(15_049);
    expect(outcomes.map(([at, o]) => [at, o.kind])).toEqual([
      [100, 'ok'],
      [270, 'ok'],
    ]);
    clock.advanceTo(20_000);
    expect(outcomes.slice(2)).toEqual([
      [15_050, { kind: 'timeout', totalMs: 15_000, modelMs: 15_000 }],
      [15_080, { kind: 'timeout', totalMs: 15_000, modelMs: 15_000 }],
    ]);
    expect(gateway.snapshot()).toMatchObject({ inFlight: 0, completed: 2, timedOut: 2 });
  });

  it('answers 504, not 200, when the service or a stall hold ends exactly at the timeout', () => {
    const { clock, outcomes, submit } = setup({}, 15_000);
    submit(1);
    clock.advanceTo(15_000);
    expect(outcomes).toEqual([{ kind: 'timeout', totalMs: 15_000, modelMs: 15_000 }]);

    const held = new ManualClock();
    const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: 10 }, () => 1000, held);
    // Ready at 1 s inside a window that ends at 15 s: released exactly at the timeout.
    const gateway = new Gateway({ rate: null, maxInFlight: 10, queueLimit: 0, timeoutMs: 15_000 }, fleet, held, {
      periodMs: 100_000,
      durationMs: 15_000,
      offsetMs: 0,
    });
    const got: GatewayOutcome[] = [];
    gateway.submit('c', { inputTokens: 1, outputTokens: 1 }, (o) => got.push(o));
    held.advanceTo(20_000);
    expect(got).toEqual([{ kind: 'timeout', totalMs: 15_000, modelMs: 15_000 }]);
  });

  it('sets no outcome after stop()', () => {
    const { clock, gateway, outcomes, submit } = setup({}, 20_000);
    submit(3);
    gateway.stop();
    clock.advanceTo(60_000);
    expect(outcomes).toEqual([]);
  });
});
