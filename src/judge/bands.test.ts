/**
 * Ramps are judged by the rate at each arrival, through the judge the run and
 * `loadproof report` share. Judged by the mean rate, a 100→300 ramp was held to 4 s although 62.5 %
 * of it comes above 200 rpm (5 s), and a 60→160 ramp to 4 s although 29 % of it comes at ≤ 100 rpm
 * (2.5 s).
 */
import { describe, expect, it } from 'vitest';

import { buildPlan } from '../plan/index.js';
import { MsHistogram } from '../recorder/index.js';
import { parseScenario } from '../scenario/index.js';
import { toEventRecord } from './events.js';
import { EventSink, judgeRun } from './judge.js';
import type { RunRecord } from './run-record.js';

const RUN = {
  schemaVersion: 1,
  loadproofVersion: 'test',
  scenarioFile: 'scenario.yaml',
  scenarioSource: 'x',
  planIdentity: 'x',
  timeScale: 1,
  environment: 'mock',
  target: { baseUrl: 'http://127.0.0.1', kind: 'embedded-mock', profile: 'nominal' },
  startedAt: '',
  guard: {},
} as unknown as RunRecord;
const END = {
  endedAt: '',
  engine: { fired: 0, dropped: 0, unsent: 0, abandoned: 0, interrupted: false, elapsedMs: 0 },
  stop: null,
  tokenCalls: 1,
  tokenLatency: MsHistogram.create().encode(),
  eventLoopDelayP99Ms: null,
  eventLoopDelayMaxMs: null,
  files: [],
};

/** Judges a one-ramp scenario whose every request took `latencyMs` (on time, answered 200). */
function judgeRamp(fromRpm: number, toRpm: number, latencyMs: (rpm: number) => number) {
  const plan = buildPlan(
    parseScenario(
      `name: ramp\ndescription: a ramp\nphases:\n  - { name: ramp, duration: 10m, fromRpm: ${fromRpm}, toRpm: ${toRpm} }\nthresholds: { errors: none }\n`,
      'ramp.yaml',
    ),
  );
  const sink = new EventSink(plan);
  let seq = 0;
  for (const t of plan.phases[0]!.arrivalsMs) {
    const rpm = fromRpm + ((toRpm - fromRpm) * t) / 600_000;
    sink.add(
      toEventRecord(
        'ramp',
        {
          seq: seq++,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t,
          result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: t + latencyMs(rpm), retryAfterS: [] },
        },
        1,
      ),
    );
  }
  const { summary, verdict } = judgeRun(plan, sink, {
    run: RUN,
    end: END,
    partial: false,
    reportedAt: '',
    judgedBy: 'test',
  });
  return {
    checks: verdict.checks.filter((c) => c.id === 'latency_p95_target').map((c) => [c.what, c.status]),
    summary,
  };
}

describe('ramps are judged by the rate at each arrival', () => {
  it('holds the part of a 100→300 ramp above 200 rpm to 5 s, the rest to 4 s', () => {
    const { checks, summary } = judgeRamp(100, 300, () => 4500);
    expect(checks).toEqual([
      ['p(95) < 4.00s (spec, burst band: its arrivals at 100–200 rpm, steady state)', 'fail'],
      ['p(95) < 5.00s (spec, spike band: its arrivals at 200–300 rpm, steady state)', 'pass'],
    ]);
    expect(summary.phases[0]!.target).toBeNull();
    const [burst, spike] = summary.phases[0]!.bands;
    expect(spike!.planned / (burst!.planned + spike!.planned)).toBeCloseTo(0.625, 2);
    expect(burst).toMatchObject({ band: 'burst', p95Ms: 4000, fromRpm: 100, toRpm: 200, startS: 0, endS: 300 });
  });

  it('holds the part of a 60→160 ramp at or below 100 rpm to 2.5 s', () => {
    // 3 s at every rate: within the burst target, over the sustained one.
    const { checks, summary } = judgeRamp(60, 160, () => 3000);
    expect(checks).toEqual([
      ['p(95) < 2.50s (spec, sustained band: its arrivals at 60–100 rpm, steady state)', 'fail'],
      ['p(95) < 4.00s (spec, burst band: its arrivals at 100–160 rpm, steady state)', 'pass'],
    ]);
    const [sustained, burst] = summary.phases[0]!.bands;
    expect(sustained!.planned / (sustained!.planned + burst!.planned)).toBeCloseTo(0.29, 2);
  });

  it('judges each arrival by its own band: latency that rises with the rate passes both', () => {
    const { checks } = judgeRamp(100, 300, (rpm) => (rpm <= 200 ? 3000 : 4500));
    expect(checks.map(([, status]) => status)).toEqual(['pass', 'pass']);
  });
});

describe('parts of a plan that planned nothing are not judged (review)', () => {
  it('skips a band that lies wholly in the warm-up, and a phase that planned no request', () => {
    const text = `name: quiet\ndescription: q\nphases:\n  - { name: ramp, duration: 2m, fromRpm: 60, toRpm: 160, warmup: 1m }\n  - { name: gap, duration: 30500ms, rpm: 60 }\n  - { name: pause, duration: 500ms, rpm: 1 }\n`;
    const plan = buildPlan(parseScenario(text, 'q.yaml'));
    expect(plan.phases[0]!.bands.map((b) => [b.band?.band, b.steadyArrivals > 0])).toEqual([
      ['sustained', false],
      ['burst', true],
    ]);
    expect(plan.phases[2]!.arrivalsMs.length).toBe(0);
    const sink = new EventSink(plan);
    let seq = 0;
    for (const p of plan.phases)
      for (const t of p.arrivalsMs)
        sink.add(
          toEventRecord(
            p.name,
            {
              seq: seq++,
              intendedAtMs: t,
              outcome: 'ok',
              firedAtMs: t,
              result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: t + 1000, retryAfterS: [] },
            },
            1,
          ),
        );
    const { verdict } = judgeRun(plan, sink, { run: RUN, end: END, partial: false, reportedAt: '', judgedBy: 'test' });
    expect(verdict.checks.filter((c) => c.status !== 'pass' && c.phase !== 'gap')).toEqual([]);
    expect(verdict.checks.map((c) => [c.phase, c.id])).toEqual([
      ['ramp', 'latency_p95_target'],
      ['ramp', 'http_429_in_envelope'],
      ['ramp', 'error_rate'],
      ['gap', 'latency_p95_target'],
      ['gap', 'http_429_in_envelope'],
      ['gap', 'error_rate'],
      ['pause', 'http_429_in_envelope'],
    ]);
  });
});
