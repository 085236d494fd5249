/**
 * One grammar for numbers and durations in a scenario, so a value means one thing wherever it is written: decimal only,
 * each unit once.
 */
import { describe, expect, it } from 'vitest';

import { parseDurationMs } from './duration.js';
import { parseScenario } from './load.js';
import { parseThreshold } from './threshold.js';

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['1.5s', 1500],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['500ms', 500],
    ['2m0.5s', 120_500],
  ])('takes %s', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each([
    ['1s1s'],
    ['1m1m'],
    ['30s1m'],
    ['1ms1s'],
    ['1s1ms1s'],
    ['1.5m30s'],
    ['0x10s'],
    ['1e3ms'],
    ['+5s'],
    ['.5s'],
    ['5.s'],
    [' 90s'],
    ['90s '],
    ['1 s'],
    ['1S'],
    ['1sec'],
    [''],
    ['s'],
    ['1h1h'],
    ['1m1ms1m'],
  ])('refuses %j', (text) => expect(parseDurationMs(text)).toBeUndefined());
});

describe('threshold values', () => {
  it.each([
    ['p(95) < 2500ms'],
    ['p(99.9) <= 1m30s'],
    ['rate(errors) < 1%'],
    ['rate(errors) < 0.5%'],
    ['rate(429) <= 0.01'],
    ['count(504) == 0'],
    ['count(dropped) < 10'],
  ])('takes %s', (text) => {
    expect(parseThreshold(text)).not.toHaveProperty('problem');
  });

  it.each([
    ['count(504) < 0x10', 'count(…) compares with a whole number ≥ 0 in decimal digits, got "0x10"'],
    ['count(504) < 0o17', 'got "0o17"'],
    ['count(504) < 0b11', 'got "0b11"'],
    ['count(504) < 1e1', 'got "1e1"'],
    ['count(504) < +3', 'got "+3"'],
    ['count(504) < 3.0', 'got "3.0"'],
    ['count(504) < 99999999999999999999', 'got "99999999999999999999"'],
    [
      'rate(errors) < 0x1',
      'rate(…) compares with a percentage like 1% or a fraction from 0 to 1, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got "0x1"',
    ],
    ['rate(errors) < 1e-2', 'got "1e-2"'],
    ['rate(errors) < .5%', 'got ".5%"'],
    ['rate(errors) < 5.%', 'got "5.%"'],
    ['rate(errors) < 1%%', 'got "1%%"'],
    ['rate(errors) < %', 'got "%"'],
    ['rate(errors) < Infinity', 'got "Infinity"'],
    [
      'p(0x5f) < 2s',
      'p(…) takes a percentile between 0 and 100 (exclusive), digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got "0x5f"',
    ],
    ['p(9.5e1) < 2s', 'got "9.5e1"'],
    [
      'p(95) < 1s1s',
      'p(…) compares with a finite duration like 2500ms or 4s (decimal amounts, each unit (h, m, s, ms) at most once and largest first, a point only in the last), got "1s1s"',
    ],
    ['p(95) < 30s1m', 'got "30s1m"'],
    ['p(95) < 0x10s', 'got "0x10s"'],
  ])('refuses %s, naming the value and the form expected', (text, mention) => {
    const parsed = parseThreshold(text);
    expect(parsed).toHaveProperty('problem');
    expect((parsed as { problem: string }).problem).toContain(mention);
  });
});

describe('numbers in the file itself', () => {
  const yaml = (rpm: string, extra = ''): string =>
    `name: n\ndescription: d\ntarget: { environment: mock }\nphases:\n  - { name: a, duration: 10s, rpm: ${rpm} }\n${extra}`;
  const refusal = (text: string, file: string): string[] => {
    try {
      parseScenario(text, file);
    } catch (error) {
      return [...(error as { problems: readonly string[] }).problems];
    }
    throw new Error('expected a refusal');
  };

  it.each([['0x10'], ['0o17'], ['1e2'], ['1E2'], ['+60'], ['.5e2']])(
    'YAML: refuses rpm: %s, naming the field and the value',
    (rpm) => {
      expect(refusal(yaml(rpm), 's.yaml')).toEqual([
        `phases[0].rpm: expected a decimal number, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got ${rpm}`,
      ]);
    },
  );

  it('YAML: names every such number, wherever it is', () => {
    expect(refusal(yaml('60', 'arrivals: { process: poisson, seed: 0x2a }\nmaxInFlight: 0o20\n'), 's.yaml')).toEqual([
      'arrivals.seed: expected a decimal number, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got 0x2a',
      'maxInFlight: expected a decimal number, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got 0o20',
    ]);
  });

  it.each([['1e2'], ['6E1'], ['60.0e0']])('JSON: refuses "rpm": %s', (rpm) => {
    const json = `{"name": "n", "description": "d", "target": {"environment": "mock"}, "phases": [{"name": "a", "duration": "10s", "rpm": ${rpm}}]}`;
    expect(refusal(json, 's.json')).toEqual([
      `phases[0].rpm: expected a decimal number, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got ${rpm}`,
    ]);
  });

  it('takes decimal numbers, and "0x10" as a string where a string is expected', () => {
    expect(() => parseScenario(yaml('60.5', 'arrivals: { process: poisson, seed: 42 }\n'), 's.yaml')).not.toThrow();
    expect(() =>
      parseScenario(
        `name: "0x10"\ndescription: d\ntarget: { environment: mock }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n`,
        's.yaml',
      ),
    ).not.toThrow();
  });
});
