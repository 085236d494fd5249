import { describe, expect, it } from 'vitest';
import { parseEventLine, toEventRecord, toRecordable } from './events.js';

describe('event records', () => {
  const answered = { seq: 7, intendedAtMs: 1000.0004, firedAtMs: 1000.2506, outcome: 'ok' as const, result: { status: 200, attempts: 1, lastSentAtMs: 1000.2506, endAtMs: 2345.6789, retryAfterS: [] } };

  it('round-trips through a line of events.ndjson to exactly what the live run recorded', () => {
    const record = toEventRecord('steady', answered, 1);
    expect(record).toMatchObject({ seq: 7, phase: 'steady', intendedAtMs: 1000, firedAtMs: 1000.251, endAtMs: 2345.679, latencyMs: 1345.679, status: 200 });
    const parsed = parseEventLine(JSON.stringify(record));
    expect(parsed).toEqual(record);
    expect(toRecordable(parsed, 2, 1)).toEqual(toRecordable(record, 2, 1));
    expect(toRecordable(parsed, 2, 1)).toMatchObject({ phase: 2, intendedAtMs: 1000, result: { endAtMs: 2345.679, attempts: 1, status: 200 } });
  });

  it('at k > 1 keeps the raw times and each try\'s serviceMs and waitMs, and judges the latency with the overheads counted once', () => {
    // k = 20: a 429 (svc 0), a chosen wait of 1,000, then 500 in service; 160 of raw overhead counts 8.
    const tried = {
      seq: 3,
      intendedAtMs: 0,
      firedAtMs: 0,
      outcome: 'ok' as const,
      result: {
        status: 200,
        attempts: 2,
        lastSentAtMs: 1060,
        endAtMs: 1660,
        retryAfterS: [1],
        tries: [
          { sentAtMs: 0, endAtMs: 40, status: 429, serviceMs: 0 },
          { sentAtMs: 1060, endAtMs: 1660, status: 200, serviceMs: 500, waitMs: 1000 },
        ],
      },
    };
    const record = toEventRecord('steady', tried, 20);
    expect(record).toMatchObject({ intendedAtMs: 0, lastSentAtMs: 1060, endAtMs: 1660, latencyMs: 1508 });
    expect(record.tries).toEqual([
      { sentAtMs: 0, endAtMs: 40, status: 429, serviceMs: 0 },
      { sentAtMs: 1060, endAtMs: 1660, status: 200, serviceMs: 500, waitMs: 1000 },
    ]);
    const again = toRecordable(parseEventLine(JSON.stringify(record)), 0, 20);
    expect(again.result).toMatchObject({ lastSentAtMs: 1060, endAtMs: 1660, latencyMs: 1508, serviceMs: 505 });
    expect(again.result?.tries?.map((t) => t.sentAtMs)).toEqual([0, 1060]); // the envelope replays the raw sends
    expect(toEventRecord('steady', tried, 1).latencyMs).toBe(1660);
    expect(() => parseEventLine(JSON.stringify({ ...record, tries: [{ sentAtMs: 0, endAtMs: 1, status: 200, serviceMs: -1 }] }))).toThrow(/serviceMs and waitMs ≥ 0/);
  });

  it('keeps a request that never left without an answer or a send time', () => {
    const record = toEventRecord('steady', { seq: 1, intendedAtMs: 5, outcome: 'unsent' }, 1);
    expect(record).toMatchObject({ firedAtMs: null, lastSentAtMs: null, endAtMs: null, latencyMs: null, attempts: 0 });
    expect(toRecordable(parseEventLine(JSON.stringify(record)), 0, 1)).toEqual({ phase: 0, intendedAtMs: 5, outcome: 'unsent' });
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
