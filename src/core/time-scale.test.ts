import { describe, expect, it } from 'vitest';
import { UsageError } from './errors.js';
import { checkTimeScale } from './time-scale.js';

describe('checkTimeScale (--time-scale)', () => {
  it.each([1, 1.5, 20, 1000])('accepts %s', (k) => {
    expect(checkTimeScale(k)).toBe(k);
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
    expect(() => checkTimeScale(k)).toThrow(UsageError);
    expect(() => checkTimeScale(k)).toThrow(`--time-scale: expected a number from 1 to 1000, got ${shown}`);
  });
});
