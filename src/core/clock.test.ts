import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';

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
    for (const precise of [false, true]) {
      const clock = new ScaledClock(1, { precise });
      let fired = false;
      clock.setTimer(clock.nowMs() - 5, () => (fired = true));
      expect(fired).toBe(false);
      await new Promise((r) => setTimeout(r, 5));
      expect(fired).toBe(true);
    }
  });

  it('never fires before its time, and a cancelled timer never fires', async () => {
    const { ScaledClock } = await import('./clock.js');
    const clock = new ScaledClock(50, { precise: true });
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
