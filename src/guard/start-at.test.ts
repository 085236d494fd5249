import { describe, expect, it } from 'vitest';

import { parseStartAt } from './start-at.js';

describe('parseStartAt (--at)', () => {
  it.each([
    ['2026-12-07T09:00:00Z', '2026-12-07T09:00:00.000Z'],
    ['2026-12-07T10:00:00+01:00', '2026-12-07T09:00:00.000Z'],
    ['2026-12-06T23:30-01:00', '2026-12-07T00:30:00.000Z'],
    ['2026-12-07', '2026-12-07T00:00:00.000Z'],
    ['2026-12-07T09:00:00.250Z', '2026-12-07T09:00:00.250Z'],
    ['2026-12-01T09:00:00+23:59', '2026-11-30T09:01:00.000Z'],
    ['2026-12-01T09:00:00-23:59', '2026-12-02T08:59:00.000Z'],
    ['1970-01-01', '1970-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ])('reads %s as %s', (text, iso) => {
    const at = parseStartAt(text);
    expect('ms' in at && new Date(at.ms).toISOString()).toBe(iso);
  });

  it.each([
    ['2026-12-07T09:00:00', 'no zone: add Z for UTC or an offset like +01:00'],
    ['next tuesday', 'expected an ISO date-time with a zone'],
    ['2026-02-30', 'is not a real date and time'],
    ['2026-12-07T25:00Z', 'is not a real date and time'],
    ['2026-12-01T09:00:00+24:00', 'a zone offset from -23:59 to +23:59'],
    ['2026-12-01T09:00:00-24:00', 'a zone offset from -23:59 to +23:59'],
    ['2026-12-01T09:00:00+05:60', 'a zone offset from -23:59 to +23:59'],
    ['0000-01-01', 'a year from 1970 to 9999'],
    ['0099-12-31T23:59:59Z', 'a year from 1970 to 9999'],
    ['1969-12-31T23:59:59Z', 'a year from 1970 to 9999'],
  ])('refuses %s', (text, problem) => {
    const at = parseStartAt(text);
    expect('problem' in at && at.problem).toContain(problem);
    expect('problem' in at && at.problem).toContain(`"${text}"`);
  });
});
