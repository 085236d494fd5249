import { describe, expect, it } from 'vitest';

import { collectGarbageNow } from './full-collection.js';

describe('collectGarbageNow', () => {
  it('collects what is no longer reachable, old space included', () => {
    let garbage: number[][] | undefined = Array.from({ length: 200 }, () =>
      Array.from({ length: 20_000 }, (_, i) => i + 0.5),
    );
    // Survive two collections so that it sits in old space, where only a full collection frees it.
    expect(collectGarbageNow()).toBe(true);
    expect(collectGarbageNow()).toBe(true);
    const held = process.memoryUsage().heapUsed;
    expect(garbage.length).toBe(200);
    garbage = undefined;
    expect(collectGarbageNow()).toBe(true);
    // 200 × 20,000 doubles: 32 MB let go.
    expect(held - process.memoryUsage().heapUsed).toBeGreaterThan(25 * 2 ** 20);
  });
});
