import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/index.js';
import { buildPlan } from './build-plan.js';

const BURST = `
name: burst
description: warm-up, a 5-minute burst at 200 rpm, recovery
phases:
  - { name: warmup, duration: 2m, rpm: 100 }
  - { name: burst, duration: 5m, rpm: 200 }
  - { name: spike, duration: 1m, fromRpm: 200, toRpm: 400 }
`;

describe('buildPlan', () => {
  it('lays phases end to end with their counts, offered rates and spec bands', () => {
    const plan = buildPlan(parseScenario(BURST, 'burst.yaml'), { timeScale: 20 });
    expect(plan.durationMs).toBe(8 * 60_000);
    expect(plan.timeScale).toBe(20);
    expect(plan.phases.map((p) => [p.name, p.startMs, p.arrivalsMs.length, p.offeredRpm, p.band?.band, p.band?.p95TargetMs])).toEqual([
      ['warmup', 0, 200, 100, 'sustained', 2500],
      ['burst', 120_000, 1000, 200, 'burst', 4000],
      ['spike', 420_000, 300, 300, 'spike', 5000],
    ]);
    expect(plan.arrivals).toBe(1500);
    expect(plan.phases[1]!.arrivalsMs[0]).toBe(120_000);
  });

  it('has no documented band above 300 rpm', () => {
    const plan = buildPlan(parseScenario('name: x\ndescription: y\nphases:\n  - { name: a, duration: 1m, rpm: 400 }\n', 'x.yaml'));
    expect(plan.phases[0]!.band).toBeUndefined();
  });

  it('is repeatable from the scenario seed with Poisson arrivals', () => {
    const text = `${BURST}arrivals: { process: poisson, seed: 7 }\n`;
    const a = buildPlan(parseScenario(text, 'a.yaml'));
    const b = buildPlan(parseScenario(text, 'b.yaml'));
    expect(a.phases.map((p) => Array.from(p.arrivalsMs))).toEqual(b.phases.map((p) => Array.from(p.arrivalsMs)));
  });
});
