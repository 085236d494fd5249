import { describe, expect, it } from 'vitest';

import { describeValue, echoValue } from './text.js';

describe('describeValue', () => {
  it.each([
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
    [-5, '-5'],
    [undefined, 'nothing'],
    [null, 'null'],
    ['fast', '"fast"'],
  ])('shows %s as %s (never a non-finite number as null)', (value, shown) => {
    expect(describeValue(value)).toBe(shown);
  });

  it('escapes control, format and line-separator characters so a message cannot move the cursor or reorder text', () => {
    expect(describeValue('a\u001b[31mb')).toBe('"a\\u001b[31mb"');
    expect(describeValue('evil\u202etxt.exe')).toBe('"evil\\u202etxt.exe"');
    expect(describeValue('zero\u200bwidth\u2028line')).toBe('"zero\\u200bwidth\\u2028line"');
    expect(describeValue('tag\u{e0041}')).toBe('"tag\\u{e0041}"');
  });

  it('cuts a long value at 60 characters', () => {
    expect(describeValue('x'.repeat(100))).toBe(`"${'x'.repeat(56)}...`);
  });

  it('never shows the user:password part of a URL', () => {
    expect(describeValue('https://alice:hunter2-canary@api.example.com/x')).toBe('"https://…@api.example.com/x"');
  });
});

describe('echoValue', () => {
  it('escapes line breaks JSON-style, so a value cannot start a line of its own', () => {
    expect(echoValue('host:1\r\nloadproof: forged')).toBe('host:1\\r\\nloadproof: forged');
    expect(echoValue('a\u001b[2Jb\u2028c')).toBe('a\\u001b[2Jb\\u2028c');
  });

  it('cuts a long value at 200 characters with "…"', () => {
    expect(echoValue('a'.repeat(100_000))).toBe(`${'a'.repeat(200)}…`);
    expect(echoValue('a'.repeat(200))).toBe('a'.repeat(200));
  });
});
