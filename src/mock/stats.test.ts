import { describe, expect, it } from 'vitest';
import { type LoggedRequest, RequestLog } from './stats.js';

const entry = (seq: number): LoggedRequest => ({ endpoint: 'identification', arrivedAtMs: seq, answeredAtMs: seq, status: 200, retryAfterS: null, seq, attempt: 1 });

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
});
