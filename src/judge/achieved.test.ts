/**
 * The achieved rate is reported against the plan. A Poisson phase plans a random number of
 * arrivals around its nominal rate; sent ÷ phase length showed a phase that sent every planned request
 * as short of its rate ("141 of 150").
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

/**
 * Judges a 3-minute Poisson phase at 150 rpm of which the first `sentShare` of the planned requests were sent (the rest
 * dropped).
 */
function judgePoisson(sentShare: number) {
  const plan = buildPlan(
    parseScenario(
      `name: p\ndescription: poisson\narrivals: { process: poisson, seed: 3 }\nphases:\n  - { name: a, duration: 3m, rpm: 150 }\nthresholds: { errors: none }\n`,
      'p.yaml',
    ),
  );
  const sink = new EventSink(plan);
  const arrivals = plan.phases[0]!.arrivalsMs;
  arrivals.forEach((t, seq) => {
    const sent = seq < Math.round(arrivals.length * sentShare);
    sink.add(
      toEventRecord(
        'a',
        sent
          ? {
              seq,
              intendedAtMs: t,
              outcome: 'ok',
              firedAtMs: t,
              result: { status: 200, attempts: 1, lastSentAtMs: t, endAtMs: t + 100, retryAfterS: [] },
            }
          : { seq, intendedAtMs: t, outcome: 'dropped' },
        1,
      ),
    );
  });
  return {
    planned: arrivals.length,
    summary: judgeRun(plan, sink, { run: RUN, end: END, partial: false, reportedAt: '', judgedBy: 'test' }).summary,
  };
}

describe('achieved rate', () => {
  it('is the offered rate when every planned request was sent, whatever the Poisson draw planned', () => {
    const { planned, summary } = judgePoisson(1);
    expect(planned).not.toBe(450); // the draw is not the nominal count: that is the point
    expect(summary.phases[0]).toMatchObject({
      offeredRpm: 150,
      achievedRpm: 150,
      sentOfPlanned: 1,
      planned,
      sent: planned,
    });
    expect(summary.overall).toMatchObject({ achievedRpm: summary.overall.offeredRpm, sentOfPlanned: 1 });
  });

  it('is the offered rate times the share of the plan sent', () => {
    const { planned, summary } = judgePoisson(0.5);
    const sent = Math.round(planned * 0.5);
    expect(summary.phases[0]).toMatchObject({
      sent,
      achievedRpm: Math.round(((150 * sent) / planned) * 100) / 100,
      sentOfPlanned: Math.round((sent / planned) * 10_000) / 10_000,
    });
  });
});
