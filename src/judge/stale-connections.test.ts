/**
 * Requests lost to a stale connection are the client's: not errors of the service, unanswered in latency (the worst
 * case), and a check they could have decided is inconclusive, never a fail.
 */
import { describe, expect, it } from 'vitest';

import { NO_429 } from '../../test/helpers/judge-phase.js';
import type { CountedOutcome } from '../core/index.js';
import { Slice } from '../recorder/index.js';
import { parseErrorCheck, type Threshold } from '../scenario/index.js';
import { evaluateVerdict } from './verdict.js';

/** `n` requests with `outcome`, intended 10 ms apart from `fromMs`; an answered one took `latencyMs`. */
function add(slice: Slice, outcome: CountedOutcome, n: number, latencyMs = 100, fromMs = 0): void {
  const status = outcome === 'ok' ? 200 : outcome === 'http_other' ? 500 : undefined;
  for (let i = 0; i < n; i++) {
    const t = fromMs + i * 10;
    slice.add({
      phase: 0,
      intendedAtMs: t,
      outcome,
      firedAtMs: t,
      result: {
        ...(status === undefined ? {} : { status }),
        attempts: 1,
        lastSentAtMs: t,
        endAtMs: t + latencyMs,
        retryAfterS: [],
      },
    });
  }
}

function verdictOf(slice: Slice, errorCheck: Threshold | null = parseErrorCheck('rate < 1%') as Threshold) {
  return evaluateVerdict({
    phases: [
      {
        name: 'p',
        bands: [
          {
            band: { band: 'sustained', upToRpm: 100, p95TargetMs: 2500, specWording: '' },
            fromRpm: 100,
            toRpm: 100,
            steadyPlanned: slice.sent,
            steady: slice,
          },
        ],
        planned: slice.sent,
        steady: slice,
        all: slice,
        envelope: NO_429,
        thresholds: [],
        errorCheck,
      },
    ],
    documentedTargets: true,
    generator: {},
  });
}

const check = (v: ReturnType<typeof verdictOf>, id: string) => v.checks.find((c) => c.id === id)!;

describe('stale connections in the verdict', () => {
  it('one in 100 is not an error of the service: the error check cannot fail on it (nor pass), a note says it', () => {
    const slice = new Slice({ fromMs: 0, toMs: 1000 });
    add(slice, 'ok', 99);
    add(slice, 'stale_connection', 1, 0, 990);
    expect(slice.failed).toBe(0);
    const v = verdictOf(slice);
    // Counted as an error it would be 1 of 100, not under 1 %: so the error check cannot pass, nor fail.
    expect(check(v, 'error_rate')).toMatchObject({ status: 'inconclusive' });
    expect(check(v, 'error_rate').reason).toMatch(
      /^0 of 100 \(0\.00 %\), but 1 requests were lost to stale connections/,
    );
    expect(check(v, 'latency_p95_target').status).not.toBe('fail');
    expect(v.status).not.toBe('fail');
    expect(v.notes.join('\n')).toContain('phase p: 1 of 100 requests were lost to stale connections');
  });

  it('passes the error check when even all of them as errors would pass it', () => {
    const slice = new Slice({ fromMs: 0, toMs: 3000 });
    add(slice, 'ok', 299);
    add(slice, 'stale_connection', 1, 0, 2990);
    expect(check(verdictOf(slice), 'error_rate')).toMatchObject({ status: 'pass', reason: '0 of 300 (0.00 %)' });
  });

  it('fails the error check on the service’s own errors, whatever the stale ones', () => {
    const slice = new Slice({ fromMs: 0, toMs: 1000 });
    add(slice, 'ok', 96);
    add(slice, 'http_other', 3);
    add(slice, 'stale_connection', 1, 0, 990);
    expect(check(verdictOf(slice), 'error_rate')).toMatchObject({ status: 'fail', reason: '3 of 100 (3.00 %)' });
  });

  it('makes a p95 fail that rests on them inconclusive, and leaves one that rests on drops a fail', () => {
    /** 1000 arrivals 1 ms apart, every 10th lost (`lost`), every 500th (from the 5th) stale. */
    const phase = (lost: CountedOutcome): Slice => {
      const slice = new Slice({ fromMs: 0, toMs: 1000 });
      for (let i = 0; i < 1000; i++)
        add(slice, i % 10 === 0 ? lost : i % 500 === 5 ? 'stale_connection' : 'ok', 1, 100, i);
      return slice;
    };
    const stale = check(verdictOf(phase('stale_connection'), null), 'latency_p95_target');
    expect(stale).toMatchObject({ status: 'inconclusive' });
    expect(stale.reason).toMatch(/^p\(95\) unanswered, .*but it rests on 102 requests lost to stale connections/);
    expect(check(verdictOf(phase('dropped'), null), 'latency_p95_target')).toMatchObject({ status: 'fail' });
  });
});
