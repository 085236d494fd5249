import { describe, expect, it } from 'vitest';

import { parseScenario } from '../scenario/index.js';
import { parseProbeSteps, probeScenario } from './steps.js';

describe('probe steps', () => {
  it('reads connections that go up, a step and a cap', () => {
    expect(parseProbeSteps('1, 2,4', '30s', 600, 128)).toEqual({ connections: [1, 2, 4], stepMs: 30_000, maxRpm: 600 });
  });

  it.each([
    ['', '30s', 600, '--connections: expected a comma list'],
    ['1,x', '30s', 600, '--connections: expected a comma list'],
    ['0,1', '30s', 600, '--connections: expected a comma list'],
    ['2,2', '30s', 600, '--connections: expected counts that go up'],
    ['1,129', '30s', 60_000, "--connections: 129 is more than the scenario's maxInFlight of 128"],
    ['1', '500ms', 600, '--step: expected a duration from 1s to 30m'],
    ['1', '31m', 600, '--step: expected a duration from 1s to 30m'],
    ['1', '30s', 0, '--max-rpm: expected a rate from 1 to 600000'],
    ['1', '30s', Number.NaN, '--max-rpm: expected a rate from 1 to 600000'],
    [
      '1,2,4',
      '30s',
      239,
      '--max-rpm: 239 is under one request a second (of wall time) per connection at 4 connections',
    ],
  ])('refuses --connections %j --step %j --max-rpm %j', (connections, step, maxRpm, message) => {
    expect(() => parseProbeSteps(connections, step, maxRpm, 128)).toThrow(message);
  });

  it('refuses a step shorter than a second of wall time at its time scale', () => {
    expect(() => parseProbeSteps('1', '10s', 600, 128, 20)).toThrow(
      '--step: 10s at time scale 20 is 500 ms of wall time; expected at least 1 s of it',
    );
    expect(parseProbeSteps('1', '20s', 600, 128, 20).stepMs).toBe(20_000);
  });

  it('is judged by the guard as its cap held for every step, each request sent once', () => {
    const scenario = parseScenario(
      'name: s\ndescription: d\ntarget: { environment: mock }\non429: { policy: retry, maxAttempts: 4 }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n',
      's.yaml',
    );
    const probe = probeScenario(scenario, { connections: [1, 8], stepMs: 20_000, maxRpm: 900 });
    // 900 rpm and a sixtieth (autocannon's whole seconds), for the step, its stop (1 s, with the token call) and its
    // pause (the default 16 s timeout).
    expect(probe.phases).toEqual([
      { name: '1 connection', durationMs: 37_000, fromRpm: 915, toRpm: 915, warmupMs: 0 },
      { name: '8 connections', durationMs: 37_000, fromRpm: 915, toRpm: 915, warmupMs: 0 },
    ]);
    expect(probe.on429.maxAttempts).toBe(1);
    expect(probe.arrivals.process).toBe('constant');
  });
});
