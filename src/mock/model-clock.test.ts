import { describe, expect, it, vi } from 'vitest';

import { monotonicMs } from '../core/clock.js';
import { ModelClock } from './model-clock.js';

describe('ModelClock', () => {
  it('runs its timers in time order, each reading the model time it was due (not when it really ran)', async () => {
    const clock = new ModelClock(1000);
    const t0 = clock.nowMs();
    const seen: [string, number][] = [];
    clock.setTimer(t0 + 50, () => seen.push(['a', clock.nowMs()]));
    clock.setTimer(t0 + 20, () => seen.push(['b', clock.nowMs()]));
    await vi.waitFor(() => expect(seen).toHaveLength(2), { timeout: 5000, interval: 5 });
    expect(seen).toEqual([
      ['b', t0 + 20],
      ['a', t0 + 50],
    ]);
    expect(clock.nowMs()).toBeGreaterThan(t0 + 50); // outside a timer, the real model time
  });

  it('runDue() runs at once every timer already due, in order, and none that is not', () => {
    const clock = new ModelClock(1000);
    const t0 = clock.nowMs();
    const seen: string[] = [];
    const cancelLater = clock.setTimer(t0 + 1e9, () => seen.push('later'));
    clock.setTimer(t0 + 2, () => seen.push('second'));
    clock.setTimer(t0 + 1, () => seen.push('first'));
    // 2 model ms are 2 µs of wall time at k = 1000: wait them out without yielding, so no native timer can fire.
    while (clock.nowMs() <= t0 + 2) {
      /* bounded: microseconds */
    }
    expect(seen).toEqual([]);
    clock.runDue();
    expect(seen).toEqual(['first', 'second']);
    cancelLater();
  });

  it('never runs a timer before its time', async () => {
    const clock = new ModelClock(50);
    const at = clock.nowMs() + 100; // 2 ms of wall time
    let ranAt: number | undefined;
    let realAtRun: number | undefined;
    clock.setTimer(at, () => {
      ranAt = clock.nowMs();
      realAtRun = (clock as unknown as { real: { nowMs(): number } }).real.nowMs();
    });
    clock.runDue(); // not due yet: nothing runs
    expect(ranAt).toBeUndefined();
    await vi.waitFor(() => expect(ranAt).toBe(at), { timeout: 5000, interval: 2 });
    expect(realAtRun!).toBeGreaterThanOrEqual(at);
  });

  it('with a lag, runs its model that far behind the real clock, and a timer when the real clock is that far past it', async () => {
    const clock = new ModelClock(100, 20); // 20 wall ms behind: 2,000 model ms
    const real = (clock as unknown as { real: { nowMs(): number } }).real;
    expect(clock.lagMs()).toBe(2000);
    const model = clock.nowMs();
    const gap = real.nowMs() - model;
    expect(gap).toBeGreaterThanOrEqual(2000);
    expect(gap).toBeLessThan(2000 + 100 * 50); // the two reads are at most 50 wall ms apart, even on a busy machine
    const at = clock.nowMs() + 100;
    let realAtRun: number | undefined;
    clock.setTimer(at, () => (realAtRun = real.nowMs()));
    await vi.waitFor(() => expect(realAtRun).toBeDefined(), { timeout: 5000, interval: 2 });
    expect(realAtRun!).toBeGreaterThanOrEqual(at + 2000);
  });

  /** A clock that has run for 80 wall ms: a due time a few ms ago is after its start. */
  const runningClock = async (k: number, lagWallMs: number): Promise<ModelClock> => {
    const clock = new ModelClock(k, lagWallMs);
    await new Promise((resolve) => setTimeout(resolve, 80));
    return clock;
  };

  it('takes a request said due a moment ago at its due time, its delay counted once as its entry', async () => {
    const clock = await runningClock(100, 20);
    const dueWall = monotonicMs() - 3; // 3 wall ms ago: 300 model ms at k = 100, under the lag of 2,000
    const before = clock.nowMs();
    const arrival = clock.arrival(dueWall);
    const after = (clock as unknown as { real: { nowMs(): number } }).real.nowMs();
    expect(arrival.late).toBe(false);
    expect(arrival.atMs).toBe(arrival.dueAtMs); // in its place among the model's events
    expect(arrival.dueAtMs).toBeGreaterThan(before); // not yet reached by the model: it runs 2,000 behind
    expect(after - arrival.dueAtMs).toBeGreaterThanOrEqual(300); // 3 wall ms before the real time
    expect(arrival.entryMs).toBeGreaterThanOrEqual(3); // the 3 ms once, not 300
    expect(arrival.entryMs).toBeLessThan(300);
  });

  it("takes a request later than the lag when it comes, as one that says nothing: no entry (its delay is in the client's own measurement)", async () => {
    const clock = await runningClock(100, 1); // 1 wall ms behind: 100 model ms
    const before = clock.nowMs();
    // 50 wall ms ago (after the clock's start): 5,000 model ms, past the lag.
    const arrival = clock.arrival(monotonicMs() - 50);
    const after = clock.nowMs();
    expect(arrival.late).toBe(true);
    expect(arrival.atMs).toBe(arrival.dueAtMs);
    expect(arrival.atMs).toBeGreaterThanOrEqual(before); // where the model has run to, not 5,000 ms back
    expect(arrival.atMs).toBeLessThanOrEqual(after);
    expect(arrival.entryMs).toBe(0);
  });

  it('never takes a request said due in the future after the real time', () => {
    const clock = new ModelClock(100, 20);
    const arrival = clock.arrival(monotonicMs() + 1000);
    const real = (clock as unknown as { real: { nowMs(): number } }).real.nowMs();
    expect(arrival.atMs).toBeLessThanOrEqual(real);
    expect(arrival.entryMs).toBe(0);
  });
});
