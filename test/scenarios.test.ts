/**
 * The shipped scenario files: each loads and plans, and the documented profiles stay inside the
 * envelope — replayed against the spec's token bucket (the mock's limiter), none of their planned
 * arrivals would be rate-limited. capacity-step is meant to cross the limit, and does.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { TokenBucket } from '../src/mock/limiter.js';
import { buildPlan } from '../src/plan/index.js';
import { loadScenario } from '../src/scenario/index.js';
import { IDENTIFICATION_LIMITS } from '../src/spec/index.js';

const DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));
const SPEC_RATE = {
  sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
  burstRpm: IDENTIFICATION_LIMITS.burstRpm,
  burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
};

/** How many planned arrivals a full spec bucket would reject. */
async function rejectedBySpecBucket(file: string): Promise<number> {
  const plan = buildPlan(await loadScenario(DIR + file));
  const bucket = new TokenBucket(SPEC_RATE, 0);
  let rejected = 0;
  for (const phase of plan.phases) for (const t of phase.arrivalsMs) if (!bucket.tryTake(t)) rejected++;
  return rejected;
}

describe('scenarios/', () => {
  it('ships the seven documented scenarios', () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    expect(files).toEqual([
      'burst.yaml',
      'capacity-step.yaml',
      'ci-regression.yaml',
      'deid.yaml',
      'sandbox-burst.yaml',
      'spike.yaml',
      'sustained.yaml',
    ]);
  });

  it('deid.yaml plans 400 documents as 718 identification requests, inside the sustained rate, and predicts no 429', async () => {
    const { planScenario } = await import('../src/run/plan-scenario.js');
    const { predict429s, DOCUMENTED_LIMITS } = await import('../src/plan/index.js');
    const { plan } = planScenario(await loadScenario(`${DIR}deid.yaml`), `${DIR}deid.yaml`, 1);
    expect(plan.documents!.count).toBe(400);
    expect(plan.arrivals).toBe(718);
    for (const p of plan.phases) expect(p.peakRpm).toBeLessThan(100);
    expect(predict429s(plan, DOCUMENTED_LIMITS).every((p) => p.refused === 0)).toBe(true);
  });

  it.each([
    { file: 'sustained.yaml', requests: 1000, minutes: 10 },
    { file: 'burst.yaml', requests: 300 + 1000 + 300, minutes: 11 },
    { file: 'sandbox-burst.yaml', requests: 300 + 1000 + 300, minutes: 11 },
    { file: 'spike.yaml', requests: 300 + 400 + 300 + 300, minutes: 9 },
    { file: 'ci-regression.yaml', requests: 500 + 800 + 150 + 300, minutes: 13 },
    { file: 'capacity-step.yaml', requests: 2 * (100 + 125 + 150 + 175 + 200 + 225 + 250 + 275 + 300), minutes: 18 },
  ])('$file plans $requests requests over $minutes minutes', async ({ file, requests, minutes }) => {
    const plan = buildPlan(await loadScenario(DIR + file));
    expect(plan.arrivals).toBe(requests);
    expect(plan.durationMs).toBe(minutes * 60_000);
  });

  // The plan is one arrival process across phases; the shipped phases hold whole
  // counts, so each still starts with an arrival at its start and holds rate × duration requests.
  it.each([
    'sustained.yaml',
    'burst.yaml',
    'sandbox-burst.yaml',
    'spike.yaml',
    'ci-regression.yaml',
    'capacity-step.yaml',
  ])('%s: every phase starts with an arrival and holds its whole count', async (file) => {
    const plan = buildPlan(await loadScenario(DIR + file));
    for (const p of plan.phases) {
      expect(p.arrivalsMs[0]).toBe(p.startMs);
      expect(p.arrivalsMs.length).toBe((p.offeredRpm * p.durationMs) / 60_000);
    }
  });

  it.each(['sustained.yaml', 'burst.yaml', 'sandbox-burst.yaml', 'spike.yaml', 'ci-regression.yaml'])(
    '%s stays inside the documented rate-limit envelope',
    async (file) => {
      expect(await rejectedBySpecBucket(file)).toBe(0);
    },
  );

  it('capacity-step crosses the documented allowance (that is its purpose)', async () => {
    expect(await rejectedBySpecBucket('capacity-step.yaml')).toBeGreaterThan(0);
  });
});
