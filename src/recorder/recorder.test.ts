import { describe, expect, it } from 'vitest';

import { createRng } from '../core/rng.js';
import type { RecordableEvent } from './event.js';
import { type PhaseLayout, Recorder, Slice, TIME_BLOCKS } from './recorder.js';

/** One band per phase, over its steady span. */
const layoutOf = (spans: { fromMs: number; toMs: number }[]): PhaseLayout[] =>
  spans.map((span) => ({ steady: span, bands: [{ ...span, endInclusive: false }] }));

const ok = (phase: number, intendedAtMs: number, latencyMs: number, lagMs = 0): RecordableEvent => ({
  phase,
  intendedAtMs,
  outcome: 'ok',
  firedAtMs: intendedAtMs + lagMs,
  result: {
    status: 200,
    attempts: 1,
    lastSentAtMs: intendedAtMs + lagMs,
    endAtMs: intendedAtMs + latencyMs,
    retryAfterS: [],
  },
});

/** Within HDR's 3 significant digits. */
const near = (actual: number, expected: number): void =>
  expect(Math.abs(actual - expected) / expected).toBeLessThan(0.001);

describe('Recorder', () => {
  it('measures latency from the intended send time and service time from the actual send', () => {
    const r = new Recorder(layoutOf([{ fromMs: 0, toMs: 60_000 }]), 10_000);
    r.record(ok(0, 1000, 3000, 500)); // fired 500 ms late; answered 3 s after it was due
    const phase = r.phases[0]!;
    near(phase.latencyExcl429.summary().max, 3000);
    near(phase.serviceExcl429.summary().max, 2500);
    near(phase.sendLag.summary().max, 500);
  });

  it('counts every outcome so that sent + dropped is everything fired, per phase, window and overall', () => {
    const r = new Recorder(
      layoutOf([
        { fromMs: 0, toMs: 10_000 },
        { fromMs: 10_000, toMs: 20_000 },
      ]),
      10_000,
    );
    r.record(ok(0, 0, 100));
    r.record({ phase: 0, intendedAtMs: 500, outcome: 'dropped' });
    r.record({
      phase: 1,
      intendedAtMs: 12_000,
      outcome: 'http_429',
      firedAtMs: 12_000,
      result: { status: 429, attempts: 1, lastSentAtMs: 12_000, endAtMs: 12_010, retryAfterS: [7] },
    });
    r.record({
      phase: 1,
      intendedAtMs: 13_000,
      outcome: 'reset',
      firedAtMs: 13_000,
      result: { attempts: 1, lastSentAtMs: 13_000, endAtMs: 13_050, retryAfterS: [] },
    });
    expect(r.overall.sent).toBe(3);
    expect(r.overall.dropped).toBe(1);
    expect(r.phases.map((p) => [p.sent, p.dropped])).toEqual([
      [1, 1],
      [2, 0],
    ]);
    expect([...r.timeline.windows()].map((w) => w.sent + w.dropped)).toEqual([2, 2]);
    expect(r.phases[1]!.status).toEqual({ '429': 1 });
    near(r.phases[1]!.retryAfter.summary().max, 7000);
    expect(r.phases[1]!.latency2xx.count).toBe(0);
    expect(r.phases[1]!.latencyExcl429.count).toBe(1);
    expect(r.phases[1]!.latency429.count).toBe(1);
  });

  it('keeps a steady-state slice after each warm-up, and every attempt for the envelope', () => {
    const r = new Recorder(layoutOf([{ fromMs: 5000, toMs: 60_000 }]), 10_000);
    r.record(ok(0, 1000, 100));
    r.record(ok(0, 6000, 100));
    const four29 = {
      phase: 0,
      intendedAtMs: 7000,
      outcome: 'http_429' as const,
      firedAtMs: 7000,
      result: { status: 429, attempts: 1, lastSentAtMs: 7000, endAtMs: 7001, retryAfterS: [1] },
    };
    r.record(four29);
    r.record({ ...four29, intendedAtMs: 8000 });
    expect(r.phases[0]!.sent).toBe(4);
    expect(r.steady[0]!.sent).toBe(3);
    expect([r.attempts.admittedCount, r.attempts.refusedCount]).toEqual([2, 2]);
  });

  it('keeps time blocks of what the verdict judges in each steady slice, by intended time over the span the plan gives', () => {
    // Phase 0 is steady from 6 s to 12 s: six blocks of 1 s. Windows, phases and overall have none.
    const r = new Recorder(layoutOf([{ fromMs: 6000, toMs: 12_000 }]), 10_000);
    expect(TIME_BLOCKS).toBe(6);
    r.record(ok(0, 1000, 100)); // warm-up
    r.record(ok(0, 6000, 200, 50));
    r.record(ok(0, 6999, 300));
    r.record(ok(0, 7000, 400));
    r.record(ok(0, 11_999, 500));
    r.record({
      phase: 0,
      intendedAtMs: 9000,
      outcome: 'http_429',
      firedAtMs: 9000,
      result: { status: 429, attempts: 1, lastSentAtMs: 9000, endAtMs: 9001, retryAfterS: [1] },
    });
    r.record({ phase: 0, intendedAtMs: 10_000, outcome: 'dropped' });
    const steady = r.steady[0]!;
    expect(steady.span).toEqual({ fromMs: 6000, toMs: 12_000 });
    // The dropped request counts too, as unanswered (worse than any target), in its block.
    expect(steady.latencyExcl429Blocks.map((b) => b.count)).toEqual([2, 1, 0, 0, 1, 1]);
    expect(steady.serviceExcl429Blocks.map((b) => b.count)).toEqual([2, 1, 0, 0, 1, 1]);
    near(steady.latencyExcl429Blocks[5]!.rankMs(1), 500);
    near(steady.serviceExcl429Blocks[0]!.rankMs(1), 150); // sent 50 ms late: service 150 ms
    expect(steady.latencyExcl429.count).toBe(5);
    expect(steady.unanswered).toBe(1);
    expect(r.phases[0]!.latencyExcl429Blocks).toEqual([]);
    expect(r.overall.latencyExcl429Blocks).toEqual([]);
  });

  it("takes a slice's span as given (a band of a ramp is a span of its own) and refuses an empty or reversed one", () => {
    const slice = new Slice({ fromMs: 60_000, toMs: 66_000 });
    // Outside the span: the nearest block.
    for (const at of [59_000, 60_000, 62_500, 66_000, 70_000]) slice.add(ok(0, at, 100));
    expect(slice.latencyExcl429Blocks.map((b) => b.count)).toEqual([2, 0, 1, 0, 0, 2]);
    expect(() => new Slice({ fromMs: 5, toMs: 5 })).toThrow(RangeError);
    expect(() => new Slice({ fromMs: 0, toMs: Number.NaN })).toThrow(RangeError);
  });

  it('refuses an event for a phase the plan does not have', () => {
    expect(() => new Recorder(layoutOf([{ fromMs: 0, toMs: 1000 }]), 1000).record(ok(3, 0, 1))).toThrow(/phase 3/);
  });
});

describe('Slice.latencyExcl429', () => {
  it('leaves fast 429s out of the judged latency, keeping timeouts and 504s', () => {
    const r = new Recorder(layoutOf([{ fromMs: 0, toMs: 60_000 }]), 10_000);
    const answer = (outcome: 'ok' | 'http_429' | 'http_504' | 'timeout', latencyMs: number): RecordableEvent => ({
      phase: 0,
      intendedAtMs: 0,
      outcome,
      firedAtMs: 0,
      result: { attempts: 1, lastSentAtMs: 0, endAtMs: latencyMs, retryAfterS: [] },
    });
    r.record(answer('ok', 1000));
    r.record(answer('http_429', 5));
    r.record(answer('http_504', 15_000));
    r.record(answer('timeout', 16_000));
    expect(r.phases[0]!.latencyExcl429.count).toBe(3);
    expect(r.phases[0]!.latencyExcl429.percentileMs(1)).toBeGreaterThan(900);
    // The 429's own round trip, apart: shown as its own series, never mixed into the latency.
    expect(r.phases[0]!.latency429.count).toBe(1);
    near(r.phases[0]!.latency429.percentileMs(100), 5);
    expect(r.timeline.window(0).latencyExcl429.summary()).toEqual(r.phases[0]!.latencyExcl429.summary());
    expect(r.timeline.window(0).latency429.summary()).toEqual(r.phases[0]!.latency429.summary());
  });
});

describe('a request whose retries all ended in 429 (review)', () => {
  it('counts in the judged latency at its end-to-end time; a 429 at the first attempt does not', () => {
    const slice = new Slice();
    slice.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'http_429',
      firedAtMs: 0,
      result: { status: 429, attempts: 1, lastSentAtMs: 0, endAtMs: 5, retryAfterS: [1] },
    });
    slice.add({
      phase: 0,
      intendedAtMs: 0,
      outcome: 'http_429',
      firedAtMs: 0,
      result: { status: 429, attempts: 4, lastSentAtMs: 20_000, endAtMs: 20_005, retryAfterS: [5, 5, 5, 5] },
    });
    expect(slice.latencyExcl429.count).toBe(1);
    expect(Math.abs(slice.latencyExcl429.rankMs(1) - 20_005)).toBeLessThan(20_005 * 0.001); // HDR: 3 significant digits
    expect(slice.latency429.count).toBe(1);
  });
});

describe('the timeline windows (memory: only what the summary reads)', () => {
  /** A mix of every kind of event, by a seeded RNG. */
  const events = (n: number, windowMs: number, seed: number): RecordableEvent[] => {
    const g = createRng(seed);
    const rng = (): number => g.next();
    return Array.from({ length: n }, (_, i): RecordableEvent => {
      const at = Math.floor(rng() * 5) * windowMs + rng() * windowMs;
      const u = rng();
      if (u < 0.05) return { phase: 0, intendedAtMs: at, outcome: 'dropped' };
      if (u < 0.08) return { phase: 0, intendedAtMs: at, outcome: 'unsent' };
      if (u < 0.1)
        return {
          phase: 0,
          intendedAtMs: at,
          outcome: 'abandoned',
          firedAtMs: at + 2,
          result: { attempts: 1, lastSentAtMs: at + 2, endAtMs: at + 9000, retryAfterS: [] },
        };
      if (u < 0.2)
        return {
          phase: 0,
          intendedAtMs: at,
          outcome: 'http_429',
          firedAtMs: at + rng() * 3,
          result: {
            status: 429,
            attempts: 1 + (i % 3),
            lastSentAtMs: at + 5,
            endAtMs: at + 10 + rng() * 50,
            retryAfterS: [1.5],
          },
        };
      if (u < 0.25)
        return {
          phase: 0,
          intendedAtMs: at,
          outcome: 'timeout',
          firedAtMs: at,
          result: { attempts: 1, lastSentAtMs: at, endAtMs: at + 30_000, retryAfterS: [] },
        };
      const answered = ok(0, at, 50 + rng() ** 3 * 4000, -1 + rng() * 20);
      // At time scale k > 1 the judged latency is the accounted one, not the raw end − intended.
      return u < 0.4 ? { ...answered, result: { ...answered.result!, latencyMs: 10 + rng() * 900 } } : answered;
    });
  };

  it('give the timeline the same counts and statistics as a full slice of the same events', () => {
    const windowMs = 10_000;
    const r = new Recorder(layoutOf([{ fromMs: 0, toMs: 50_000 }]), windowMs);
    const full = Array.from({ length: 5 }, () => new Slice());
    for (const e of events(4000, windowMs, 11)) {
      r.record(e);
      full[Math.floor(e.intendedAtMs / windowMs)]!.add(e);
    }
    expect(r.timeline.length).toBe(5);
    [...r.timeline.windows()].forEach((w, i) => {
      const f = full[i]!;
      expect([w.sent, w.dropped, w.outcomes]).toEqual([f.sent, f.dropped, f.outcomes]);
      expect(w.latencyExcl429.summary()).toEqual(f.latencyExcl429.summary());
      expect(w.latency429.summary()).toEqual(f.latency429.summary());
      expect(w.sendLag.summary()).toEqual(f.sendLag.summary());
    });
  });

  it("keep one entry per latency bucket that holds a value, not HDR's array of every bucket up to the largest", () => {
    const r = new Recorder(layoutOf([{ fromMs: 0, toMs: 10_000 }]), 10_000);
    // 3,000 answers at three latencies (one of 20 s, which makes an HDR counts array of ~15,000 buckets).
    for (let i = 0; i < 3000; i++) r.record(ok(0, i, [100, 900, 20_000][i % 3]!));
    const w = r.timeline.window(0);
    expect(w.latencyExcl429.count).toBe(3000);
    expect(w.latencyExcl429.bucketCount).toBe(3);
    expect(w.sendLag.bucketCount).toBe(1);
    // And nothing else that grows: columns, not an object per window; no service time or 2xx-only latency.
    expect(Object.keys(r.timeline).sort()).toEqual(['counts', 'latency429', 'latencyExcl429', 'sendLag', 'windowMs']);
  });

  it('keep empty windows where the load paused, whatever order the events come in, across many windows', () => {
    const windowMs = 1000;
    const r = new Recorder(layoutOf([{ fromMs: 0, toMs: 100_000 }]), windowMs);
    // Events finish out of order: window 40 first, then 3, then 41; nothing in windows 0–2, 4–39.
    r.record(ok(0, 40_500, 120));
    r.record({ phase: 0, intendedAtMs: 3_000, outcome: 'dropped' });
    r.record(ok(0, 41_999, 80, 2));
    r.record(ok(0, 40_000, 300));
    expect(r.timeline.length).toBe(42);
    const counts = [...r.timeline.windows()].map((w) => w.sent + w.dropped);
    expect(counts.filter((n) => n > 0)).toEqual([1, 2, 1]);
    expect([counts[3], counts[40], counts[41]]).toEqual([1, 2, 1]);
    expect(r.timeline.window(3).dropped).toBe(1);
    expect(r.timeline.window(3).latencyExcl429.percentileMs(100)).toBeGreaterThan(1e8); // dropped: unanswered
    expect(r.timeline.window(40).latencyExcl429.percentileMs(100)).toBeCloseTo(300, 0);
    expect(r.timeline.window(41).sendLag.percentileMs(50)).toBeCloseTo(2, 1);
    expect(() => r.timeline.window(42)).toThrow(/window 42 outside 0–41/);
  });
});
