import { describe, expect, it } from 'vitest';

import { createRng, nextInt } from '../core/rng.js';
import { formatEventLine, parseEventLine, toEventRecord, toRecordable } from './events.js';

describe('event records', () => {
  const answered = {
    seq: 7,
    intendedAtMs: 1000.0004,
    firedAtMs: 1000.2506,
    outcome: 'ok' as const,
    result: { status: 200, attempts: 1, lastSentAtMs: 1000.2506, endAtMs: 2345.6789, retryAfterS: [] },
  };

  it('round-trips through a line of events.ndjson to exactly what the live run recorded', () => {
    const record = toEventRecord('steady', answered, 1);
    expect(record).toMatchObject({
      seq: 7,
      phase: 'steady',
      intendedAtMs: 1000,
      firedAtMs: 1000.251,
      endAtMs: 2345.679,
      latencyMs: 1345.679,
      status: 200,
    });
    const parsed = parseEventLine(JSON.stringify(record));
    expect(parsed).toEqual(record);
    expect(toRecordable(parsed, 2, 1)).toEqual(toRecordable(record, 2, 1));
    expect(toRecordable(parsed, 2, 1)).toMatchObject({
      phase: 2,
      intendedAtMs: 1000,
      result: { endAtMs: 2345.679, attempts: 1, status: 200 },
    });
  });

  it("at k > 1 keeps the raw times and each try's serviceMs and waitMs, and judges the latency with the overheads counted once", () => {
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
    expect(() =>
      parseEventLine(JSON.stringify({ ...record, tries: [{ sentAtMs: 0, endAtMs: 1, status: 200, serviceMs: -1 }] })),
    ).toThrow(/serviceMs, lagMs and waitMs ≥ 0/);
  });

  it('keeps a request that never left without an answer or a send time', () => {
    const record = toEventRecord('steady', { seq: 1, intendedAtMs: 5, outcome: 'unsent' }, 1);
    expect(record).toMatchObject({ firedAtMs: null, lastSentAtMs: null, endAtMs: null, latencyMs: null, attempts: 0 });
    expect(toRecordable(parseEventLine(JSON.stringify(record)), 0, 1)).toEqual({
      phase: 0,
      intendedAtMs: 5,
      outcome: 'unsent',
    });
  });

  it.each([
    ['{', 'not a JSON line'],
    ['[1]', 'not a JSON object'],
    ['{"seq":-1}', 'seq: expected a whole number ≥ 0'],
    ['{"seq":1,"phase":3}', 'phase: expected a phase name'],
    ['{"seq":1,"phase":"a","intendedAtMs":"x"}', 'intendedAtMs: expected a number'],
    ['{"seq":1,"phase":"a","intendedAtMs":1,"firedAtMs":"x"}', 'firedAtMs: expected a number or null'],
    [
      '{"seq":1,"phase":"a","intendedAtMs":1,"firedAtMs":null,"lastSentAtMs":null,"endAtMs":null,"latencyMs":null,"outcome":"fine"}',
      'outcome: expected one of ok,',
    ],
    [
      '{"seq":1,"phase":"a","intendedAtMs":1,"firedAtMs":1,"lastSentAtMs":1,"endAtMs":2,"latencyMs":1,"outcome":"http_429","status":429,"attempts":1,"retryAfterS":[],"tries":[{"sentAtMs":1,"endAtMs":2,"status":429,"errorCode":"rate limited\\""}]}',
      'errorCode a token of 1–64 letters, digits or _.:-',
    ],
  ])('names what is wrong with %s', (line, message) => {
    expect(() => parseEventLine(line)).toThrow(message);
  });

  it('writes each line exactly as JSON.stringify would (every outcome, nulls, retries, optional try fields, odd names and numbers)', () => {
    const rng = createRng(11);
    const outcomes = ['ok', 'http_429', 'http_504', 'timeout', 'reset', 'abandoned', 'dropped', 'unsent'] as const;
    const odd = [0, -0, 1e-7, 123456789.123, 5e21, 0.1 + 0.2, -3.5];
    const number = (): number =>
      rng.next() < 0.2 ? odd[nextInt(rng, 0, odd.length - 1)]! : rng.next() * 10 ** nextInt(rng, 0, 7);
    const names = ['steady', 'ramp "up"', 'π — fünf', 'back\\slash\ttab', ''];
    for (let i = 0; i < 2000; i++) {
      const attempts = nextInt(rng, 0, 3);
      const tries = Array.from({ length: attempts }, () => {
        const t: {
          sentAtMs: number;
          endAtMs: number;
          status: number | null;
          serviceMs?: number;
          waitMs?: number;
          errorCode?: string;
        } = { sentAtMs: number(), endAtMs: number(), status: rng.next() < 0.3 ? null : nextInt(rng, 100, 599) };
        if (rng.next() < 0.5) t.serviceMs = number();
        if (rng.next() < 0.3) t.waitMs = number();
        if (rng.next() < 0.2)
          t.errorCode = ['rate_limited', 'too_many_in_flight', 'Quota.Exceeded:1-a'][nextInt(rng, 0, 2)]!;
        return t;
      });
      const maybe = (): number | null => (rng.next() < 0.25 ? null : number());
      const record = {
        seq: nextInt(rng, 0, 1e9),
        phase: names[i % names.length]!,
        intendedAtMs: number(),
        firedAtMs: maybe(),
        lastSentAtMs: maybe(),
        endAtMs: maybe(),
        latencyMs: maybe(),
        outcome: outcomes[i % outcomes.length]!,
        status: rng.next() < 0.3 ? null : nextInt(rng, 100, 599),
        attempts,
        retryAfterS: Array.from({ length: nextInt(rng, 0, 2) }, number),
        tries,
      };
      expect(formatEventLine(record, JSON.stringify(record.phase))).toBe(`${JSON.stringify(record)}\n`);
    }
  });
});
