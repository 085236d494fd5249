import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/index.js';
import { buildPlan } from './build-plan.js';
import { envelopeFlags } from './envelope.js';

const planOf = (phases: string) => buildPlan(parseScenario(`name: t\ndescription: d\nphases:\n${phases}`, 't.yaml'));

describe('envelopeFlags', () => {
  it('keeps 100 rpm for an hour and 200 rpm for 5 minutes inside the documented envelope', () => {
    expect(envelopeFlags(planOf('  - { name: a, duration: 60m, rpm: 100 }\n')).every((f) => f === 1)).toBe(true);
    expect(envelopeFlags(planOf('  - { name: a, duration: 5m, rpm: 200 }\n')).every((f) => f === 1)).toBe(true);
  });

  it('puts 300 rpm outside after 2.5 minutes, and 200 rpm after 5', () => {
    const at300 = envelopeFlags(planOf('  - { name: a, duration: 4m, rpm: 300 }\n'));
    // Before request i the bucket holds 501 − 2i/3: i = 750 (at 150 s) still fits, 751 does not.
    expect(at300.indexOf(0)).toBe(751);
    const at200 = envelopeFlags(planOf('  - { name: a, duration: 7m, rpm: 200 }\n'));
    expect(at200.indexOf(0)).toBe(1001); // 501 − i/2 ≥ 1 up to i = 1000, the last request of minute 5
  });

  it('uses raised limits when given', () => {
    const plan = planOf('  - { name: a, duration: 10m, rpm: 300 }\n');
    expect(envelopeFlags(plan, { sustainedRpm: 300, burstRpm: 400, burstMinutes: 5 }).every((f) => f === 1)).toBe(true);
  });
});
