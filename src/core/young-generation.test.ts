import { afterEach, describe, expect, it, vi } from 'vitest';

import { capYoungGeneration, YOUNG_GENERATION_CAP_BYTES } from './young-generation.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('capYoungGeneration', () => {
  it('stops the growth once, when the young generation reaches the cap, and checks no more', () => {
    vi.useFakeTimers();
    const sizes = [2, 8, 16, 32].map((mib) => mib * 2 ** 20);
    let reads = 0;
    const stopGrowth = vi.fn();
    capYoungGeneration({ sizeBytes: () => sizes[Math.min(reads++, sizes.length - 1)]!, stopGrowth }, 500);
    // Read at once (2 MiB), then every 500 ms: 8 MiB, then 16 MiB, the cap.
    vi.advanceTimersByTime(500);
    expect(stopGrowth).not.toHaveBeenCalled();
    vi.advanceTimersByTime(500);
    expect(stopGrowth).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000);
    expect(reads).toBe(3);
    expect(stopGrowth).toHaveBeenCalledTimes(1);
  });

  it('stops it at once when it is already at the cap, and survives a V8 that refuses the flag', () => {
    const stopGrowth = vi.fn(() => {
      throw new Error('flags are frozen');
    });
    expect(() => capYoungGeneration({ sizeBytes: () => YOUNG_GENERATION_CAP_BYTES, stopGrowth })).not.toThrow();
    expect(stopGrowth).toHaveBeenCalledTimes(1);
  });
});
