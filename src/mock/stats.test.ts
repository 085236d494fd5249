import { describe, expect, it } from 'vitest';

import { type LoggedRequest, RequestLog } from './stats.js';

const entry = (seq: number): LoggedRequest => ({
  endpoint: 'identification',
  arrivedAtMs: seq,
  answeredAtMs: seq,
  status: 200,
  retryAfterS: null,
  seq,
  attempt: 1,
});

describe('RequestLog', () => {
  it('keeps everything, oldest first, until it is full', () => {
    const log = new RequestLog(3);
    [0, 1].forEach((s) => log.add(entry(s)));
    expect(log.snapshot()).toEqual({ entries: [entry(0), entry(1)], droppedOldest: 0 });
  });

  it('keeps the last `capacity` entries, oldest first, and counts what it dropped', () => {
    const log = new RequestLog(3);
    [0, 1, 2, 3, 4].forEach((s) => log.add(entry(s)));
    expect(log.snapshot()).toEqual({ entries: [entry(2), entry(3), entry(4)], droppedOldest: 2 });
  });

  it('gives back each field as it was logged: nulls, fractions, obfuscation, a large seq', () => {
    const log = new RequestLog(2);
    const odd: LoggedRequest = {
      endpoint: 'obfuscation',
      arrivedAtMs: 1.25,
      answeredAtMs: 1e9 + 0.5,
      status: null,
      retryAfterS: null,
      seq: 2 ** 53 - 1,
      attempt: null,
    };
    const limited: LoggedRequest = {
      endpoint: 'identification',
      arrivedAtMs: 0,
      answeredAtMs: 0,
      status: 429,
      retryAfterS: 7,
      seq: null,
      attempt: 3,
    };
    log.add(odd);
    log.add(limited);
    expect(log.snapshot()).toEqual({ entries: [odd, limited], droppedOldest: 0 });
  });
});
