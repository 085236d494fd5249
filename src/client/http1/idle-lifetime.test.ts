import { describe, expect, it } from 'vitest';

import { DEFAULT_IDLE_LIFETIME_MS, idleLifetimeMs } from './idle-lifetime.js';

describe('idle lifetime of a kept-alive connection', () => {
  it('is the configured lifetime when the server said no Keep-Alive timeout (nginx, haproxy)', () => {
    expect(idleLifetimeMs(DEFAULT_IDLE_LIFETIME_MS, undefined)).toBe(1500);
    expect(idleLifetimeMs(500, undefined)).toBe(500);
  });

  it('stays a margin under the timeout the server said: a second, or half of a shorter one', () => {
    // Node's http server says timeout=5: the configured 1.5 s is already well under.
    expect(idleLifetimeMs(DEFAULT_IDLE_LIFETIME_MS, 5000)).toBe(1500);
    expect(idleLifetimeMs(60_000, 5000)).toBe(4000);
    expect(idleLifetimeMs(60_000, 2000)).toBe(1000);
    // timeout=1 left nothing with a whole second off (every request reconnected): now half of it.
    expect(idleLifetimeMs(60_000, 1000)).toBe(500);
    expect(idleLifetimeMs(DEFAULT_IDLE_LIFETIME_MS, 0)).toBe(0);
  });
});
