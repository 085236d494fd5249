import { describe, expect, it } from 'vitest';
import { parseEventLine, toEventRecord, toRecordable } from './events.js';

describe('event records', () => {
  const answered = { seq: 7, intendedAtMs: 1000.0004, firedAtMs: 1000.2506, outcome: 'ok' as const, result: { status: 200, attempts: 1, lastSentAtMs: 1000.2506, endAtMs: 2345.6789, retryAfterS: [] } };

  it('round-trips through a line of events.ndjson to exactly what the live run recorded', () => {
    const record = toEventRecord('steady', answered);
    expect(record).toMatchObject({ seq: 7, phase: 'steady', intendedAtMs: 1000, firedAtMs: 1000.251, endAtMs: 2345.679, latencyMs: 1345.679, status: 200 });
    const parsed = parseEventLine(JSON.stringify(record));
    expect(parsed).toEqual(record);
    expect(toRecordable(parsed, 2)).toEqual(toRecordable(record, 2));
    expect(toRecordable(parsed, 2)).toMatchObject({ phase: 2, intendedAtMs: 1000, result: { endAtMs: 2345.679, attempts: 1, status: 200 } });
  });

  it('keeps a request that never left without an answer or a send time', () => {
    const record = toEventRecord('steady', { seq: 1, intendedAtMs: 5, outcome: 'unsent' });
    expect(record).toMatchObject({ firedAtMs: null, lastSentAtMs: null, endAtMs: null, latencyMs: null, attempts: 0 });
    expect(toRecordable(parseEventLine(JSON.stringify(record)), 0)).toEqual({ phase: 0, intendedAtMs: 5, outcome: 'unsent' });
  });

  it.each([
    ['{', 'not a JSON line'],
    ['[1]', 'not a JSON object'],
    ['{"seq":-1}', 'seq: expected a whole number ≥ 0'],
    ['{"seq":1,"phase":3}', 'phase: expected a phase name'],
    ['{"seq":1,"phase":"a","intendedAtMs":"x"}', 'intendedAtMs: expected a number'],
    ['{"seq":1,"phase":"a","intendedAtMs":1,"firedAtMs":"x"}', 'firedAtMs: expected a number or null'],
    ['{"seq":1,"phase":"a","intendedAtMs":1,"firedAtMs":null,"lastSentAtMs":null,"endAtMs":null,"latencyMs":null,"outcome":"fine"}', 'outcome: expected one of ok,'],
  ])('names what is wrong with %s', (line, message) => {
    expect(() => parseEventLine(line)).toThrow(message);
  });
});
