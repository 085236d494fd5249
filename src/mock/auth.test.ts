import { describe, expect, it } from 'vitest';

import { ManualClock } from '../core/clock.js';
import { TokenStore } from './auth.js';

const bearerOf = (token: string): string => `Bearer ${token}`;

describe('TokenStore', () => {
  it('does work in proportion to the tokens it forgets, not to the tokens it holds', () => {
    const clock = new ManualClock();
    const store = new TokenStore(clock, 60, { maxHeld: 20_000 });
    for (let i = 0; i < 10_000; i++) store.issue('client');
    const before = store.visited;
    clock.advanceTo(30_000);
    for (let i = 0; i < 5000; i++) store.issue('client');
    // Nothing is due yet: each issue looks at the oldest token only.
    expect(store.visited - before).toBeLessThanOrEqual(5000);
    expect(store.size).toBe(15_000);

    // The first 10,000 are forgotten one lifetime after they expired (60 s + 60 s): one issue visits
    // each of them once, plus the first one it keeps.
    clock.advanceTo(120_000);
    const beforeForget = store.visited;
    store.issue('client');
    expect(store.visited - beforeForget).toBe(10_001);
    expect(store.size).toBe(5001);
  });

  it('holds at most 10,000 tokens by default and evicts the oldest first', () => {
    const clock = new ManualClock();
    const store = new TokenStore(clock, 3600);
    const first = store.issue('client').accessToken;
    const second = store.issue('client').accessToken;
    for (let i = 2; i < 10_000; i++) store.issue('client');
    expect(store.size).toBe(10_000);
    expect(store.check(bearerOf(first))).toEqual({ ok: true, clientId: 'client' });
    const before = store.visited;
    const last = store.issue('client').accessToken;
    expect(store.visited - before).toBeLessThanOrEqual(2);
    expect(store.size).toBe(10_000);
    expect(store.evicted).toBe(1);
    expect(store.check(bearerOf(first))).toEqual({ ok: false, reason: 'unknown' });
    expect(store.check(bearerOf(second))).toEqual({ ok: true, clientId: 'client' });
    expect(store.check(bearerOf(last))).toEqual({ ok: true, clientId: 'client' });
  });

  it('says "expired" for one more lifetime after a token expires, then forgets it', () => {
    const clock = new ManualClock();
    const store = new TokenStore(clock, 60);
    const token = store.issue('client').accessToken;
    clock.advanceTo(60_000);
    store.issue('client');
    expect(store.check(bearerOf(token))).toEqual({ ok: false, reason: 'expired' });
    clock.advanceTo(120_000);
    store.issue('client');
    expect(store.check(bearerOf(token))).toEqual({ ok: false, reason: 'unknown' });
    expect(store.size).toBe(2);
  });
});
