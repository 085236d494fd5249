import { describe, expect, it } from 'vitest';

import { formatModelTime, parseModelLag, parseModelTime } from './server-timing.js';

describe('Server-Timing svc', () => {
  it.each([
    ['svc;dur=12.5', 12.5],
    ['svc;dur=0.000', 0],
    ['svc;dur=1010.000, queue;dur=0.0, service;dur=20.0, hold;dur=990.0', 1010],
    ['queue;dur=3, svc;dur=7', 7],
    ['svc; desc="model"; dur="42"', 42],
    [['cache;dur=1', 'svc;dur=9'], 9],
    ['service;dur=20', undefined],
    ['svc', undefined],
    ['svc;dur=-1', undefined],
    ['svc;dur=abc', undefined],
    [undefined, undefined],
  ] as const)('%j → %s', (header, ms) => {
    expect(parseModelTime(header)).toBe(ms);
  });

  it('round-trips what the mock writes, to the microsecond', () => {
    expect(parseModelTime(formatModelTime(1234.56789))).toBe(1234.568);
    expect(formatModelTime(-3)).toBe('svc;dur=0.000');
  });

  it('says and reads the lag of a mock that runs its model behind the real clock, and none when it has none', () => {
    expect(formatModelTime(10, 400)).toBe('svc;dur=10.000, lag;dur=400.000');
    expect(parseModelTime(formatModelTime(10, 400))).toBe(10);
    expect(parseModelLag(formatModelTime(10, 400))).toBe(400);
    expect(parseModelLag(formatModelTime(10))).toBeUndefined();
  });
});
