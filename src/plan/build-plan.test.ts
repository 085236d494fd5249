import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/index.js';
import { buildPlan } from './build-plan.js';

/** A scenario of the given phases, as the loader would give it. */
const scenarioOf = (phases: object[], arrivals: object = { process: 'constant', seed: 1 }) =>
  parseScenario(JSON.stringify({ name: 'x', description: 'y', phases, arrivals }), 'x.json');
const allArrivals = (plan: ReturnType<typeof buildPlan>): number[] => plan.phases.flatMap((p) => Array.from(p.arrivalsMs));

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

  // Issue 9, case 1: each phase used to restart its count at 0 and so fired an arrival at its start
  // whatever its rate (200 × {100ms, 1 rpm} planned 200 requests in 20 s: 600 rpm).
  describe('one arrival process across phases (the expected count runs on across phase boundaries)', () => {
    it('200 phases of {100ms, 1 rpm} plan what 20 s at 1 rpm plans: one request, at the start', () => {
      const plan = buildPlan(scenarioOf(Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, duration: '100ms', rpm: 1 }))));
      expect(plan.durationMs).toBe(20_000);
      expect(allArrivals(plan)).toEqual([0]);
      expect(plan.phases.filter((p) => p.arrivalsMs.length === 0)).toHaveLength(199);
    });

    it('1,000 phases of {1ms, 300 rpm} plan 5 requests 200 ms apart, as 1 s at 300 rpm does', () => {
      const plan = buildPlan(scenarioOf(Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}`, duration: '1ms', rpm: 300 }))));
      expect(allArrivals(plan)).toEqual(Array.from({ length: 5 }, (_, i) => i * 200));
    });

    it('a constant rate split at a boundary that is not a whole count plans the same arrivals as one phase', () => {
      const split = buildPlan(scenarioOf([{ name: 'a', duration: '90s', rpm: 1 }, { name: 'b', duration: '90s', rpm: 1 }]));
      expect(split.phases.map((p) => Array.from(p.arrivalsMs))).toEqual([[0, 60_000], [120_000]]);
    });

    it('a ramp split into two ramps plans the same arrivals as the whole ramp', () => {
      const whole = allArrivals(buildPlan(scenarioOf([{ name: 'r', duration: '150s', fromRpm: 7, toRpm: 333 }])));
      const split = allArrivals(buildPlan(scenarioOf([{ name: 'r1', duration: '70s', fromRpm: 7, toRpm: 7 + (326 * 70) / 150 }, { name: 'r2', duration: '80s', fromRpm: 7 + (326 * 70) / 150, toRpm: 333 }])));
      expect(split).toHaveLength(whole.length);
      split.forEach((t, i) => expect(t).toBeCloseTo(whole[i]!, 2));
    });

    it('Poisson arrivals continue their running sum: 600 phases of 1 s plan what one 10-minute phase plans from the same seed', () => {
      const poisson = { process: 'poisson', seed: 5 };
      const whole = allArrivals(buildPlan(scenarioOf([{ name: 'all', duration: '10m', rpm: 120 }], poisson)));
      const split = allArrivals(buildPlan(scenarioOf(Array.from({ length: 600 }, (_, i) => ({ name: `s${i}`, duration: '1s', rpm: 120 })), poisson)));
      expect(whole.length).toBeGreaterThan(1000);
      expect(split).toHaveLength(whole.length);
      split.forEach((t, i) => expect(t).toBeCloseTo(whole[i]!, 2));
    });

    it('keeps the arrivals of phases whose counts are whole: each starts with an arrival at its start', () => {
      const plan = buildPlan(parseScenario(BURST, 'burst.yaml'));
      expect(plan.phases.map((p) => p.arrivalsMs[0])).toEqual([0, 120_000, 420_000]);
    });
  });
});
