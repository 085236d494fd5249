import { describe, expect, it } from 'vitest';

import { formatDuration, parseDurationMs } from './duration.js';

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [999.4, '999ms'],
    [999.6, '1s'],
    [1500, '1.5s'],
    [59_440, '59.4s'],
    [59_500, '59.5s'],
    [59_960, '1m'],
    [90_000, '1m30s'],
    [599_400, '9m59s'],
    [599_500, '10m'],
    [599_990, '10m'],
    [3_599_600, '1h'],
    [3_659_600, '1h1m'],
    [86_399_999, '24h'],
  ])('%d ms → %s: rounded before it is split, so no unit reads 60', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('reads back as the duration it rounds to', () => {
    for (const ms of [1500, 90_000, 600_000, 3_660_000]) expect(parseDurationMs(formatDuration(ms))).toBe(ms);
  });
});
