import { afterEach, describe, expect, it, vi } from 'vitest';

import { ManualClock, ScaledClock } from './clock.js';

describe('ManualClock', () => {
  it('fires timers in time order, ties in the order they were set, reading each timer time', () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    clock.setTimer(30, () => seen.push(`c@${clock.nowMs()}`));
    clock.setTimer(10, () => seen.push(`a@${clock.nowMs()}`));
    clock.setTimer(10, () => seen.push(`b@${clock.nowMs()}`));
    clock.advanceTo(25);
    expect(seen).toEqual(['a@10', 'b@10']);
    expect(clock.nowMs()).toBe(25);
    clock.advanceTo(100);
    expect(seen).toEqual(['a@10', 'b@10', 'c@30']);
  });

  it('runs timers set by timers when they come due within the same advance', () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    clock.setTimer(5, () => clock.setTimer(clock.nowMs() + 5, () => seen.push(clock.nowMs())));
    clock.advanceTo(20);
    expect(seen).toEqual([10]);
  });

  it('does not fire a cancelled timer, and fires a past-due one at once', () => {
    const clock = new ManualClock(100);
    const seen: number[] = [];
    const cancel = clock.setTimer(150, () => seen.push(1));
    clock.setTimer(50, () => seen.push(clock.nowMs()));
    cancel();
    clock.advanceBy(100);
    expect(seen).toEqual([100]);
  });
});

describe('ScaledClock', () => {
  it('never fires a timer from inside setTimer, even when it is already due', async () => {
    const { ScaledClock } = await import('./clock.js');
    const clock = new ScaledClock(1);
    let fired = false;
    clock.setTimer(clock.nowMs() - 5, () => (fired = true));
    expect(fired).toBe(false);
    await new Promise((r) => setTimeout(r, 5));
    expect(fired).toBe(true);
  });

  it('never fires before its time, and a cancelled timer never fires', async () => {
    const { ScaledClock } = await import('./clock.js');
    const clock = new ScaledClock(50);
    const firedAt: number[] = [];
    const target = clock.nowMs() + 200; // 4 ms of wall time
    clock.setTimer(target, () => firedAt.push(clock.nowMs()));
    const cancel = clock.setTimer(target, () => firedAt.push(-1));
    cancel();
    await new Promise((r) => setTimeout(r, 30));
    expect(firedAt).toHaveLength(1);
    expect(firedAt[0]).toBeGreaterThanOrEqual(target);
  });
});

describe('ScaledClock long waits', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  // Node turns a setTimeout delay above 2^31 − 1 ms into 1 ms: a 30-day wait would fire at once.
  const MAX_TIMEOUT_MS = 2 ** 31 - 1;

  it.each([1, 1000])('never hands setTimeout a delay above 2^31 − 1 ms (time scale %s)', (timeScale) => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const clock = new ScaledClock(timeScale);
    const cancel = clock.setTimer(clock.nowMs() + 30 * 86_400_000 * timeScale, () => {});
    cancel();
    const delays = spy.mock.calls.map((call) => call[1] ?? 0);
    expect(delays.length).toBeGreaterThan(0);
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(MAX_TIMEOUT_MS);
  });

  it('re-arms a long wait in a few chunks and fires once, at its time, not before', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    const clock = new ScaledClock(1);
    const target = clock.nowMs() + 60 * 86_400_000; // 60 days: about 2.4 chunks of 2^31 − 1 ms
    const firedAt: number[] = [];
    clock.setTimer(target, () => firedAt.push(clock.nowMs()));
    // Bounded: a wait overflowed into 1 ms timers would need billions of steps.
    let steps = 0;
    while (firedAt.length === 0 && steps < 10) {
      vi.advanceTimersToNextTimer();
      steps += 1;
    }
    expect(firedAt).toHaveLength(1);
    expect(firedAt[0]).toBeGreaterThanOrEqual(target);
    expect(firedAt[0]).toBeLessThan(target + 2);
  });
});

describe('ScaledClock waits without spinning', () => {
  afterEach(() => vi.restoreAllMocks());

  // A clock that woke 1 ms early and finished each wait in setImmediate turns,
  // cost a whole core at 1,000 req/s: a wait is timers only, however close the deadline.
  it('waits with timers only (no setImmediate turns), even for a deadline under 1 ms away, and not before its time', async () => {
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    const clock = new ScaledClock(1, { keepAlive: true });
    const firedAt: number[] = [];
    for (const aheadMs of [0.2, 0.9, 3]) {
      const target = clock.nowMs() + aheadMs;
      await new Promise<void>((resolve) =>
        clock.setTimer(target, () => {
          firedAt.push(clock.nowMs() - target);
          resolve();
        }),
      );
    }
    expect(firedAt).toHaveLength(3);
    for (const late of firedAt) expect(late).toBeGreaterThanOrEqual(0);
    expect(immediates).not.toHaveBeenCalled();
  });
});
