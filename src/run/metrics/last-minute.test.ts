import { describe, expect, it } from 'vitest';

import { LastMinute } from './last-minute.js';

describe('LastMinute', () => {
  it('reads a rate a model minute over the last minute, or since the start when that is shorter', () => {
    const w = new LastMinute();
    expect(w.perMinute(0)).toBe(0);
    for (let ms = 0; ms < 30_000; ms += 1000) w.add(ms);
    // 30 in the first 30 s: 60 a minute.
    expect(w.perMinute(30_000)).toBe(60);
    // A minute on, only the seconds after 30 s count: none.
    expect(w.perMinute(90_000)).toBe(0);
    w.add(90_500);
    expect(w.perMinute(91_000)).toBe(1);
  });

  it('counts the seconds after the one a minute ago, after long unread', () => {
    const w = new LastMinute();
    for (let s = 0; s < 10_000; s++) w.add(s * 1000);
    // Seconds 9,941 to 9,999.
    expect(w.perMinute(10_000_000)).toBe(59);
  });
});
