/**
 * Timeouts beside an embedded mock that stalled: excused only when the mock fell behind by the verdict's rule (its
 * delay's p99 outlasted its window), never on one stall.
 */
import { describe, expect, it } from 'vitest';

import { Slice } from '../recorder/index.js';
import { parseErrorCheck, type Threshold } from '../scenario/index.js';
import { lateTimeoutsCheck } from './late-timeouts.js';

/** `ok` answered requests, `timeout` timed-out ones and `reset` connections reset. */
function slice(ok: number, timeout: number, reset = 0): Slice {
  const s = new Slice();
  const result = { status: 200, attempts: 1, lastSentAtMs: 0, endAtMs: 100, retryAfterS: [] };
  for (let i = 0; i < ok; i++) s.add({ phase: 0, intendedAtMs: 0, outcome: 'ok', firedAtMs: 0, result });
  for (let i = 0; i < timeout; i++)
    s.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'timeout',
      firedAtMs: 0,
      result: { ...result, status: undefined } as never,
    });
  for (let i = 0; i < reset; i++)
    s.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'reset',
      firedAtMs: 0,
      result: { ...result, status: undefined } as never,
    });
  return s;
}

const failing = {
  id: 'error_rate',
  phase: 'p',
  what: 'errors',
  status: 'fail' as const,
  observed: 0.5,
  interval: null,
  reason: '500 of 1000',
};

/** The mock at k = 20 whose worst stall was 220 ms (4 s of model time); `p99ModelMs`: what its p99 says. */
const mockWith = (p99ModelMs: number) => ({
  latenessInLatency: 1 / 20,
  mock: { modelMs: 4000, maxWallMs: 220, p99ModelMs },
});

describe('timeouts beside an embedded mock that stalled', () => {
  const t = parseErrorCheck('rate < 1%') as Threshold;

  it('a service that times out half its requests still fails when the mock stalled once (p99 within its window)', () => {
    expect(lateTimeoutsCheck(failing, slice(500, 500), t, mockWith(0)).status).toBe('fail');
  });

  it('the same timeouts are inconclusive when the mock was behind often enough to move its p99', () => {
    const check = lateTimeoutsCheck(failing, slice(500, 500), t, mockWith(100));
    expect(check.status).toBe('inconclusive');
    expect(check.reason).toContain('500 of them timed out while the embedded mock fell behind');
  });

  it('a check that fails without its timeouts stays a fail, however far behind the mock', () => {
    expect(lateTimeoutsCheck(failing, slice(900, 50, 50), t, mockWith(100)).status).toBe('fail');
  });
});
