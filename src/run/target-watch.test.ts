import { describe, expect, it } from 'vitest';

import { TimeScale } from '../core/index.js';
import type { EventRecord } from '../judge/index.js';
import { TargetWatch } from './target-watch.js';

const failed = (sentAtMs: number, outcome: EventRecord['outcome'] = 'refused', tookMs = 1): EventRecord => ({
  seq: 0,
  phase: 'p',
  intendedAtMs: sentAtMs,
  firedAtMs: sentAtMs,
  lastSentAtMs: sentAtMs,
  endAtMs: sentAtMs + tookMs,
  latencyMs: tookMs,
  outcome,
  status: null,
  attempts: 1,
  retryAfterS: [],
  tries: [],
});
const answered = (sentAtMs: number, status = 200): EventRecord => ({
  ...failed(sentAtMs, status === 200 ? 'ok' : 'http_other', 100),
  status,
});

/** Feeds a request every `everyMs` from `fromMs`; returns when (model ms) the watch gave up, if it did. */
function feed(
  watch: TargetWatch,
  make: (atMs: number) => EventRecord,
  fromMs: number,
  toMs: number,
  everyMs: number,
): number | undefined {
  for (let t = fromMs; t < toMs; t += everyMs) if (watch.observe(make(t)) !== undefined) return t;
  return undefined;
}

describe('TargetWatch', () => {
  it('gives up after a minute of refused connections, and says so in words', () => {
    const watch = new TargetWatch();
    expect(feed(watch, (t) => answered(t), 0, 30_000, 200)).toBeUndefined();
    const gaveUpAt = feed(watch, (t) => failed(t), 30_000, 200_000, 200);
    // The silence starts at the first refused request (30 s) and must last a minute.
    expect(gaveUpAt).toBe(90_000);
  });

  it('at time scale k, a silence must also last 5 s of wall time: a stall of a busy machine is not a dead target', () => {
    // At k = 60 a model minute is one wall second: one stall of the machine looked like a dead target.
    const watch = new TargetWatch(TimeScale.of(60));
    expect(feed(watch, (t) => answered(t), 0, 30_000, 200)).toBeUndefined();
    const gaveUpAt = feed(watch, (t) => failed(t), 30_000, 30_000 + 600_000, 200);
    // 5 s of wall time at k = 60 is 300 s of model time, from the first refused request.
    expect(gaveUpAt).toBe(330_000);
    // At k = 1 the model minute is the longer: unchanged.
    const real = new TargetWatch(TimeScale.REAL);
    expect(feed(real, (t) => failed(t), 0, 200_000, 200)).toBe(60_000);
  });

  it('names what the requests met', () => {
    const watch = new TargetWatch();
    let why: string | undefined;
    for (let t = 0; t <= 60_000 && why === undefined; t += 6_000)
      why = watch.observe(failed(t, t % 12_000 === 0 ? 'reset' : 'timeout'));
    expect(why).toMatch(
      /^the target stopped answering: no HTTP answer for 60\.00s of model time, and the 11 requests that ended since got none \(6 reset, 5 timeout\)/,
    );
  });

  it('needs 10 requests in a row, however long the silence', () => {
    const watch = new TargetWatch();
    expect(feed(watch, (t) => failed(t), 0, 9 * 60_000, 60_000)).toBeUndefined();
    expect(watch.observe(failed(10 * 60_000))).toBeDefined();
  });

  it('forgives a restart of a few seconds: any HTTP answer, even a 500, starts the count again', () => {
    const watch = new TargetWatch();
    for (let minute = 0; minute < 10; minute++) {
      const at = minute * 60_000;
      expect(feed(watch, (t) => failed(t), at, at + 50_000, 100)).toBeUndefined();
      expect(watch.observe(answered(at + 50_000, 500))).toBeUndefined();
    }
  });

  it('does not let a late failure of an old request outweigh a newer answer', () => {
    const watch = new TargetWatch();
    watch.observe(answered(100_000));
    for (let i = 0; i < 20; i++) expect(watch.observe(failed(0, 'timeout', 30_000))).toBeUndefined();
  });

  it('counts timeouts from their send: a server that accepts and never answers is gone a minute after the first send', () => {
    const watch = new TargetWatch();
    const gaveUpAt = feed(watch, (t) => failed(t, 'timeout', 30_000), 0, 200_000, 1_000);
    expect(gaveUpAt).toBe(30_000);
  });
});

describe('TargetWatch at the end of a run', () => {
  it('takes a target that died in the last minute as gone: 10 or more failures in a row, nothing answered after', () => {
    const watch = new TargetWatch();
    feed(watch, (t) => answered(t), 0, 80_000, 500);
    expect(feed(watch, (t) => failed(t), 80_000, 120_000, 500)).toBeUndefined();
    expect(watch.atEnd()).toBe(
      'the target stopped answering: the last 80 requests of the run got no HTTP answer (80 refused), and none answered after them',
    );
  });

  it('does not for a few failures at the end, or failures followed by an answer', () => {
    const few = new TargetWatch();
    feed(few, (t) => answered(t), 0, 60_000, 500);
    feed(few, (t) => failed(t), 60_000, 64_500, 500);
    expect(few.atEnd()).toBeUndefined();
    const recovered = new TargetWatch();
    feed(recovered, (t) => failed(t), 0, 30_000, 500);
    recovered.observe(answered(30_000));
    expect(recovered.atEnd()).toBeUndefined();
  });
});
