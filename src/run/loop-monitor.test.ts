import { describe, expect, it } from 'vitest';

import { DENSE_INTERVAL_MS, loopMonitorIntervalMs, SPARSE_INTERVAL_MS } from './loop-monitor.js';

describe('loopMonitorIntervalMs', () => {
  it('samples finely when arrivals keep the loop awake, coarsely between sparse ones', () => {
    // 1,000 req/s for 10 s; 50 req/s (an arrival every 20 ms); 5 req/s.
    expect(loopMonitorIntervalMs(10_000, 10_000)).toBe(DENSE_INTERVAL_MS);
    expect(loopMonitorIntervalMs(500, 10_000)).toBe(DENSE_INTERVAL_MS);
    expect(loopMonitorIntervalMs(50, 10_000)).toBe(SPARSE_INTERVAL_MS);
    // ci-regression at k = 20 (1,750 requests in 87 s of wall time, one every 50 ms) against k = 60.
    expect(loopMonitorIntervalMs(1750, 87_000)).toBe(SPARSE_INTERVAL_MS);
    expect(loopMonitorIntervalMs(1750, 29_000)).toBe(DENSE_INTERVAL_MS);
    expect(loopMonitorIntervalMs(0, 10_000)).toBe(SPARSE_INTERVAL_MS);
  });
});
