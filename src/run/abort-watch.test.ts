import { describe, expect, it } from 'vitest';

import type { EventRecord } from '../judge/index.js';
import { buildPlan } from '../plan/index.js';
import { parseScenario } from '../scenario/index.js';
import { AbortWatch } from './abort-watch.js';

/** 60 rpm for 100 s (100 planned requests), warm-up 10 s (90 in the steady state), with `thresholds`. */
const watchFor = (thresholds: string): AbortWatch =>
  new AbortWatch(
    buildPlan(
      parseScenario(
        `name: w\ndescription: watch\nphases:\n  - { name: steady, duration: 100s, rpm: 60, warmup: 10s }\nthresholds:\n  all:\n${thresholds}`,
        'w.yaml',
      ),
      { timeScale: 1 },
    ),
  );

const rec = (over: Partial<EventRecord>): EventRecord =>
  ({
    seq: 0,
    phase: 'steady',
    intendedAtMs: 20_000,
    firedAtMs: 20_000,
    lastSentAtMs: 20_000,
    endAtMs: 21_000,
    latencyMs: 1000,
    outcome: 'ok',
    status: 200,
    attempts: 1,
    retryAfterS: [],
    tries: [],
    ...over,
  }) as EventRecord;

/** How many records it takes until the watch says stop (undefined: it never does within `most`). */
function stopsAfter(watch: AbortWatch, record: EventRecord, most = 200): number | undefined {
  for (let i = 1; i <= most; i++) if (watch.record(record) !== undefined) return i;
  return undefined;
}

describe('abortOnFail: a threshold stops the run once it has failed beyond doubt', () => {
  it('p(95) < X: once more answers are over X than the p95 of the planned steady requests allows (90 − ⌈85.5⌉ = 4, so the 5th)', () => {
    expect(
      stopsAfter(watchFor('    - { threshold: "p(95) < 500ms", abortOnFail: true }\n'), rec({ latencyMs: 800 })),
    ).toBe(5);
    // At X exactly: over for "<", not for "<=".
    expect(
      stopsAfter(watchFor('    - { threshold: "p(95) < 800ms", abortOnFail: true }\n'), rec({ latencyMs: 800 })),
    ).toBe(5);
    expect(
      stopsAfter(watchFor('    - { threshold: "p(95) <= 800ms", abortOnFail: true }\n'), rec({ latencyMs: 800 })),
    ).toBeUndefined();
  });

  it("counts only what the check judges: the steady state, answers, not a first attempt's 429", () => {
    const watch = watchFor('    - { threshold: "p(95) < 500ms", abortOnFail: true }\n');
    expect(stopsAfter(watch, rec({ latencyMs: 800, intendedAtMs: 5000 }))).toBeUndefined(); // warm-up
    expect(stopsAfter(watch, rec({ latencyMs: null, outcome: 'timeout', status: null }))).toBeUndefined(); // no answer: not counted (the watch may be late, never early)
    expect(stopsAfter(watch, rec({ latencyMs: 800, outcome: 'http_429', status: 429 }))).toBeUndefined();
    expect(stopsAfter(watch, rec({ latencyMs: 800, outcome: 'http_429', status: 429, attempts: 2 }))).toBe(5); // retried: in the sample
  });

  it('rate(of) < f once the count reaches f × the planned steady requests; count(of) < n at n; a threshold without it never', () => {
    expect(
      stopsAfter(
        watchFor('    - { threshold: "rate(429) < 10%", abortOnFail: true }\n'),
        rec({ outcome: 'http_429', status: 429 }),
      ),
    ).toBe(9);
    expect(
      stopsAfter(
        watchFor('    - { threshold: "rate(429) <= 10%", abortOnFail: true }\n'),
        rec({ outcome: 'http_429', status: 429 }),
      ),
    ).toBe(10);
    expect(
      stopsAfter(
        watchFor('    - { threshold: "count(504) < 3", abortOnFail: true }\n'),
        rec({ outcome: 'http_504', status: 504 }),
      ),
    ).toBe(3);
    expect(
      stopsAfter(
        watchFor('    - { threshold: "rate(errors) < 5%", abortOnFail: true }\n'),
        rec({ outcome: 'reset', status: null, latencyMs: null }),
      ),
    ).toBe(5);
    const plain = watchFor('    - "p(95) < 500ms"\n');
    expect(plain.active).toBe(false);
    expect(stopsAfter(plain, rec({ latencyMs: 800 }))).toBeUndefined();
  });

  it('says once why it stops', () => {
    const watch = watchFor('    - { threshold: "count(504) < 1", abortOnFail: true }\n');
    expect(watch.record(rec({ outcome: 'http_504', status: 504 }))).toBe(
      "steady: count(504) < 1 has failed beyond doubt (1 504, as many as its phase's planned requests allow): abortOnFail",
    );
    expect(watch.record(rec({ outcome: 'http_504', status: 504 }))).toBeUndefined();
  });
});
