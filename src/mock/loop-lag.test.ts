import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { LoopLag, mockLagOf } from './loop-lag.js';

describe("the embedded mock's own lag", () => {
  it('counts only the delay beyond the model lag window, k times', () => {
    expect(mockLagOf(4, 15, 20, 20)).toEqual({ p99WallMs: 4, maxWallMs: 15, windowWallMs: 20, modelMs: 0 });
    expect(mockLagOf(4, 220, 20, 20).modelMs).toBe(4000);
    // In real time there is no window: every wall ms is a model ms.
    expect(mockLagOf(4, 30, 0, 1).modelMs).toBe(30);
  });

  it("sees its own thread's loop blocked (at least as long as it was), and starts again after each read", async () => {
    const lag = new LoopLag(20, 20);
    try {
      await sleep(30);
      // Blocked for at least 200 ms whatever the machine's speed: the monitor can only see more.
      const until = performance.now() + 200;
      while (performance.now() < until);
      await sleep(30);
      const read = lag.read();
      expect(read.maxWallMs).toBeGreaterThanOrEqual(180);
      expect(read.modelMs).toBeCloseTo((read.maxWallMs - 20) * 20, 6);
      expect(lag.read().maxWallMs).toBeLessThan(read.maxWallMs);
    } finally {
      lag.stop();
    }
  });
});
