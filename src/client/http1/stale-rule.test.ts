import { describe, expect, it } from 'vitest';

import { couldBeIdleClose, STALE_IDLE_FLOOR_MS, staleWindowMs } from './stale-rule.js';

describe('a close under a request on a kept-alive connection', () => {
  it('can be an idle close only after the connection sat idle at least the floor', () => {
    expect(couldBeIdleClose({ idleMs: STALE_IDLE_FLOOR_MS, sinceWriteMs: 1, setupMs: 1 })).toBe(true);
    expect(couldBeIdleClose({ idleMs: STALE_IDLE_FLOOR_MS - 1, sinceWriteMs: 1, setupMs: 1 })).toBe(false);
    expect(couldBeIdleClose({ idleMs: 0, sinceWriteMs: 0, setupMs: 0 })).toBe(false);
  });

  it('and only when seen within the window after the write: a quarter second, or 4 × its setup time', () => {
    expect(staleWindowMs(1)).toBe(250);
    expect(staleWindowMs(200)).toBe(800);
    expect(couldBeIdleClose({ idleMs: 1000, sinceWriteMs: 250, setupMs: 1 })).toBe(true);
    expect(couldBeIdleClose({ idleMs: 1000, sinceWriteMs: 251, setupMs: 1 })).toBe(false);
    expect(couldBeIdleClose({ idleMs: 1000, sinceWriteMs: 700, setupMs: 200 })).toBe(true);
    expect(couldBeIdleClose({ idleMs: 1000, sinceWriteMs: 2000, setupMs: 200 })).toBe(false);
  });
});
