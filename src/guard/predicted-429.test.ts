import { describe, expect, it } from 'vitest';

import { buildPlan } from '../plan/index.js';
import { predict429s } from '../plan/index.js';
import { DOCUMENTED_LIMITS } from '../plan/limits.js';
import { parseScenario } from '../scenario/index.js';
import { describePredicted429s } from './predicted-429.js';

const planOf = (phases: string) =>
  buildPlan(parseScenario(`name: p\ndescription: d\nphases:\n${phases}`, 'p.yaml'), { timeScale: 1 });

describe('predict429s', () => {
  it('stays at zero at the sustained rate, and for exactly the burst allowance', () => {
    expect(predict429s(planOf('  - { name: a, duration: 30m, rpm: 100 }\n'), DOCUMENTED_LIMITS)[0]).toMatchObject({
      refused: 0,
      firstAtMs: null,
    });
    expect(predict429s(planOf('  - { name: a, duration: 5m, rpm: 200 }\n'), DOCUMENTED_LIMITS)[0]).toMatchObject({
      refused: 0,
      firstAtMs: null,
    });
  });

  it('finds the bucket empty when the burst outlasts its allowance: 200 rpm for 5 minutes, then 300 for 2.5', () => {
    const [burst] = predict429s(planOf('  - { name: a, duration: 7m, rpm: 200 }\n'), DOCUMENTED_LIMITS);
    // 501 tokens drained at 100 a minute net: empty just after 5 minutes, then one arrival in two refused.
    expect(burst!.firstAtMs! / 60_000).toBeCloseTo(5, 1);
    expect(burst!.refused).toBeGreaterThanOrEqual(199);
    expect(burst!.refused).toBeLessThanOrEqual(201);
    const [spike] = predict429s(planOf('  - { name: a, duration: 3m, rpm: 300 }\n'), DOCUMENTED_LIMITS);
    expect(spike!.firstAtMs! / 60_000).toBeCloseTo(2.5, 1);
  });

  it('carries the bucket across phases, and uses the limits it is given', () => {
    const plan = planOf(
      '  - { name: fill, duration: 4m, rpm: 200 }\n  - { name: rest, duration: 1m, rpm: 50 }\n  - { name: more, duration: 3m, rpm: 200 }\n',
    );
    const [fill, rest, more] = predict429s(plan, DOCUMENTED_LIMITS);
    expect([fill!.refused, rest!.refused]).toEqual([0, 0]);
    // 501 − 400 + 400 (4 min net) … : after fill 101 tokens, rest refills 50 (151), more drains 100 a minute net: empty
    // at about 1.5 min in.
    expect((more!.firstAtMs! - plan.phases[2]!.startMs) / 60_000).toBeCloseTo(1.51, 1);
    const raised = predict429s(plan, { sustainedRpm: 200, burstRpm: 300, burstMinutes: 5 });
    expect(raised.every((p) => p.refused === 0)).toBe(true);
  });

  it('says the full bucket it assumes: the client idle for as long as an empty bucket takes to refill', () => {
    const plan = planOf('  - { name: a, duration: 1m, rpm: 50 }\n');
    const [head, , under] = describePredicted429s(plan, predict429s(plan, DOCUMENTED_LIMITS), DOCUMENTED_LIMITS);
    expect(head).toBe(
      'Predicted 429s, from the documented limits: a bucket of 501 tokens refilled at 100 rpm, assuming the client sent nothing for 5m1s before the start (a full bucket); first attempts, retries come on top:',
    );
    expect(under).toContain('a rate-limit 429 would be a finding against the mock from a full bucket');
  });
});
