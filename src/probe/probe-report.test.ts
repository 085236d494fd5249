import { describe, expect, it } from 'vitest';

import type { ProbeStep } from './probe.js';
import { BUCKET_CAVEAT, effectiveCapRpm, lastCleanStep, probeFindings, type ProbeReport } from './probe-report.js';

const step = (connections: number, over: Partial<ProbeStep> = {}): ProbeStep => ({
  connections,
  durationMs: 30_000,
  sent: 50 * connections,
  answered: 50 * connections,
  answeredRpm: 100 * connections,
  ok: 50 * connections,
  okRpm: 100 * connections,
  latencyMs: { p50: 100, p95: 200, p99: 300, max: 400 },
  status: { 200: 50 * connections },
  http429: 0,
  otherStatus: 0,
  errors: 0,
  malformed: 0,
  tooLarge: 0,
  timeouts: 0,
  cut: 0,
  ...over,
});
const report = (
  steps: ProbeStep[],
  endedBy: ProbeReport['result']['endedBy'],
  maxRpm = 6000,
  timeScale = 1,
): ProbeReport => ({
  scenario: 's',
  endpoint: 'obfuscation',
  url: '/x',
  target: 'the embedded mock',
  timeScale,
  stepMs: 30_000,
  maxRpm,
  startedAt: '2026-11-26T00:00:00.000Z',
  result: { steps, endedBy },
});

describe('probe findings', () => {
  it('names the first step with 429s, the last step without, the requests sent before, and why that is not a rate', () => {
    const r = report([step(1), step(2), step(4, { http429: 7, ok: 193, okRpm: 386 })], 'first 429s');
    expect(lastCleanStep(r.result)?.connections).toBe(2);
    expect(probeFindings(r)).toEqual([
      'stopped at the first step with 429s, at 4 connections: 7 of 200 answers, after 350 requests in all',
      'last step without a 429 or an error: 2 connections, 200 rpm of 2xx',
      BUCKET_CAVEAT,
    ]);
  });

  it('says when no step ran clean, and counts the requests cut at a step end', () => {
    const r = report([step(1, { otherStatus: 3, cut: 2 })], 'errors');
    expect(probeFindings(r)).toEqual([
      'stopped at the first step with errors, at 1 connection: 3 answers other than 2xx and 429, 0 malformed 2xx bodies, 0 requests without an answer (connection errors, connections closed under them), 0 timeouts',
      'no step ran without a 429 or an error',
      '2 requests still unanswered when their step ended (cut): the percentiles leave them out, so the slowest answers may be missing',
    ]);
  });

  it('keeps the steps measured when a later token call fails', () => {
    const r = {
      ...report([step(1), step(2)], 'errors'),
      result: { steps: [step(1), step(2)], endedBy: 'token failed' as const, failure: 'token: refused (401)' },
    };
    expect(probeFindings(r)).toEqual([
      'stopped after the step at 2 connections: the token call before the next step failed (token: refused (401))',
      'last step without a 429 or an error: 2 connections, 200 rpm of 2xx',
    ]);
  });

  it('tells a cap that held the last step back from a service that did not refuse', () => {
    expect(probeFindings(report([step(1), step(2)], 'last step', 6000))).toEqual([
      'no step got a 429 or an error, up to 2 connections (200 rpm of 2xx at the last)',
    ]);
    expect(probeFindings(report([step(1), step(2)], 'last step', 200))).toEqual([
      'no step got a 429 or an error, up to 2 connections (200 rpm of 2xx at the last)',
      'the last step answered at the cap of 180 rpm: the cap, not the service, held it back; raise --max-rpm to look higher',
    ]);
  });

  it('states the cap as autocannon holds it: whole requests a wall second', () => {
    expect(effectiveCapRpm({ maxRpm: 119, timeScale: 1 })).toBe(60);
    expect(effectiveCapRpm({ maxRpm: 6000, timeScale: 20 })).toBe(6000);
    expect(effectiveCapRpm({ maxRpm: 100, timeScale: 7 })).toBeCloseTo((Math.floor(700 / 60) * 60) / 7);
  });
});
