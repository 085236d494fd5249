import { describe, expect, it } from 'vitest';

import { UsageError } from './errors.js';
import { TimeScale } from './time-scale.js';

describe('TimeScale.of (--time-scale)', () => {
  it.each([1, 1.5, 20, 1000])('accepts %s', (k) => {
    expect(TimeScale.of(k).k).toBe(k);
  });

  it.each([
    [1e-300, '1e-300'],
    [0, '0'],
    [-1, '-1'],
    [0.5, '0.5'],
    [1000.5, '1000.5'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('refuses %s, naming the flag, the range and the value', (k, shown) => {
    expect(() => TimeScale.of(k)).toThrow(UsageError);
    expect(() => TimeScale.of(k)).toThrow(`--time-scale: expected a number from 1 to 1000, got ${shown}`);
  });
});

describe('TimeScale', () => {
  it('converts wall to model time and back, and rates the other way', () => {
    const k = TimeScale.of(20);
    expect(k.toModelMs(50)).toBe(1000);
    expect(k.toWallMs(1000)).toBe(50);
    expect(k.toWallRate(100)).toBe(2000);
    expect(k.toModelRate(2000)).toBe(100);
    expect(k.isReal).toBe(false);
    expect(TimeScale.of(1)).toBe(TimeScale.REAL);
  });

  it('names the field it was read from when it refuses', () => {
    expect(() => TimeScale.of(0, 'run.json timeScale')).toThrow(
      'run.json timeScale: expected a number from 1 to 1000, got 0',
    );
  });
});
