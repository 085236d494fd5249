import { describe, expect, it, vi } from 'vitest';
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
});
