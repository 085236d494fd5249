import { describe, expect, it } from 'vitest';

import { TimeScale } from '../../core/index.js';
import type { EventRecord } from '../../judge/index.js';
import { buildPlan } from '../../plan/index.js';
import { parseScenario } from '../../scenario/index.js';
import type { Family, HistogramSample } from './exposition.js';
import { RunMetrics } from './run-metrics.js';

const plan = buildPlan(
  parseScenario('name: m\ndescription: metrics\nphases:\n  - { name: steady, duration: 1m, rpm: 60 }\n', 'm.yaml'),
  { timeScale: 1 },
);

/** A request sent at 1 s (due at 0), answered `latencyMs` after it was due. */
const record = (over: Partial<EventRecord>): EventRecord => ({
  seq: 0,
  phase: 'steady',
  intendedAtMs: 0,
  firedAtMs: 1000,
  lastSentAtMs: 1000,
  endAtMs: 2000,
  latencyMs: 2000,
  outcome: 'ok',
  status: 200,
  attempts: 1,
  retryAfterS: [],
  tries: [],
  ...over,
});

const histogram = (families: Family[], name: string): HistogramSample =>
  families.find((f) => f.name === name)!.samples[0] as HistogramSample;

describe('run metrics', () => {
  it('count latency as the definition does: retried 429s at their time, unanswered requests in +Inf only', () => {
    const metrics = new RunMetrics(plan, { scenario: 'm', environment: 'mock', timeScale: TimeScale.of(1, 'k') });
    metrics.record(record({ latencyMs: 400 }));
    // A 429 at once: left out. A 429 after its retries: counted, at its end-to-end time.
    metrics.record(record({ outcome: 'http_429', status: 429, latencyMs: 50 }));
    metrics.record(record({ outcome: 'http_429', status: 429, attempts: 3, latencyMs: 8000 }));
    // Dropped, abandoned, stale: no answer, worse than any target.
    metrics.record(
      record({ outcome: 'dropped', firedAtMs: null, lastSentAtMs: null, endAtMs: null, latencyMs: null, status: null }),
    );
    metrics.record(record({ outcome: 'abandoned', endAtMs: null, latencyMs: null, status: null }));
    metrics.record(record({ outcome: 'stale_connection', endAtMs: null, latencyMs: null, status: null }));
    const h = histogram(metrics.families(), 'loadproof_request_latency_seconds');
    expect(h.count).toBe(5);
    // 0.4 s and 8 s under their bounds; the three unanswered only in +Inf (count), and not in the sum.
    expect(h.cumulative[h.bounds.indexOf(0.5)]).toBe(1);
    expect(h.cumulative.at(-1)).toBe(2);
    expect(h.sum).toBeCloseTo(8.4, 9);
  });

  it('measure send lag from when a request was free to go, and goodput as the 2xx answers the summary counts', () => {
    const metrics = new RunMetrics(plan, { scenario: 'm', environment: 'mock', timeScale: TimeScale.of(1, 'k') });
    metrics.start(0, () => 30_000);
    // A deid piece held back until 990 ms, sent at 1000 ms: 10 ms late, not 1 s.
    metrics.record(record({ readyAtMs: 990 }));
    // A 200 whose body was not JSON is not an answer the summary's goodput counts.
    metrics.record(record({ outcome: 'malformed', status: 200 }));
    const families = metrics.families();
    const lag = histogram(families, 'loadproof_send_lag_seconds');
    expect(lag.sum).toBeCloseTo(0.01 + 1, 9);
    expect(lag.cumulative[lag.bounds.indexOf(0.01)]).toBe(1);
    const goodput = families.find((f) => f.name === 'loadproof_goodput_requests_per_minute')!;
    // 1 answer ok in the 30 s so far: 2 a minute.
    expect(goodput.samples[0]).toEqual({ labels: {}, value: 2 });
  });
});
