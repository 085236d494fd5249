import { describe, expect, it } from 'vitest';

import { parseScenario } from '../scenario/index.js';
import { sliceIndexAt } from './bands.js';
import { arrivalsBefore, buildPlan } from './build-plan.js';
import { planNotes } from './describe.js';

/** A scenario of the given phases, as the loader would give it. */
const scenarioOf = (phases: object[], arrivals: object = { process: 'constant', seed: 1 }) =>
  parseScenario(JSON.stringify({ name: 'x', description: 'y', phases, arrivals }), 'x.json');
const allArrivals = (plan: ReturnType<typeof buildPlan>): number[] =>
  plan.phases.flatMap((p) => Array.from(p.arrivalsMs));

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
    expect(
      plan.phases.map((p) => [
        p.name,
        p.startMs,
        p.arrivalsMs.length,
        p.offeredRpm,
        p.bands.map((b) => [b.band?.band, b.band?.p95TargetMs, b.arrivals]),
      ]),
    ).toEqual([
      ['warmup', 0, 200, 100, [['sustained', 2500, 200]]],
      ['burst', 120_000, 1000, 200, [['burst', 4000, 1000]]],
      // 200→400 rpm: the first half of the minute at ≤ 300 rpm (spike, 5 s; the arrival at 300 rpm too), the second
      // above (no target).
      [
        'spike',
        420_000,
        300,
        300,
        [
          ['spike', 5000, 126],
          [undefined, undefined, 174],
        ],
      ],
    ]);
    expect(plan.arrivals).toBe(1500);
    expect(plan.phases[1]!.arrivalsMs[0]).toBe(120_000);
  });

  it('has no documented band above 300 rpm', () => {
    const plan = buildPlan(
      parseScenario('name: x\ndescription: y\nphases:\n  - { name: a, duration: 1m, rpm: 400 }\n', 'x.yaml'),
    );
    expect(plan.phases[0]!.bands.map((b) => b.band)).toEqual([undefined]);
  });

  it.each([
    // Ramps across a band boundary: judged by their mean rate, each would be held to one target for all its traffic.
    {
      from: 100,
      to: 300,
      expected: [
        ['burst', 100, 200, 0.375],
        ['spike', 200, 300, 0.625],
      ],
    },
    {
      from: 60,
      to: 160,
      expected: [
        ['sustained', 60, 100, 0.4],
        ['burst', 100, 160, 0.6],
      ],
    },
    {
      from: 300,
      to: 50,
      expected: [
        ['spike', 300, 200, 0.4],
        ['burst', 200, 100, 0.4],
        ['sustained', 100, 50, 0.2],
      ],
    },
  ])('splits a $from→$to rpm ramp by the rate at each arrival', ({ from, to, expected }) => {
    const text = `name: r\ndescription: ramp\nphases:\n  - { name: before, duration: 1m, rpm: 50 }\n  - { name: ramp, duration: 10m, fromRpm: ${from}, toRpm: ${to}, warmup: 1m }\n`;
    const ramp = buildPlan(parseScenario(text, 'r.yaml')).phases[1]!;
    expect(ramp.bands.map((b) => [b.band?.band, b.fromRpm, b.toRpm])).toEqual(
      expected.map(([band, f, t]) => [band, f, t]),
    );
    const total = ramp.arrivalsMs.length;
    expect(ramp.bands.reduce((sum, b) => sum + b.arrivals, 0)).toBe(total);
    for (const [i, b] of ramp.bands.entries()) {
      // Arrivals in proportion to the area under the rate line over each stretch.
      const share = (((b.fromRpm + b.toRpm) / 2) * ((b.endMs - b.startMs) / 60_000)) / (((from + to) / 2) * 10);
      expect(Math.abs(b.arrivals / total - share)).toBeLessThan(0.01);
      expect(b.endMs).toBe(ramp.bands[i + 1]?.startMs ?? ramp.startMs + ramp.durationMs);
      // Every arrival of the stretch is in the band of the rate at its time (an arrival on an edge in the lower band).
      const inside = (t: number): boolean =>
        (from < to ? t > b.startMs || (i === 0 && t === b.startMs) : t >= b.startMs) &&
        (from < to ? t <= b.endMs : t < b.endMs || i === ramp.bands.length - 1);
      expect(b.steadyArrivals).toBe([...ramp.arrivalsMs].filter((t) => inside(t) && t >= ramp.startMs + 60_000).length);
    }
    expect(ramp.bands[0]!.startMs).toBe(60_000);
  });

  it('is repeatable from the scenario seed with Poisson arrivals', () => {
    const text = `${BURST}arrivals: { process: poisson, seed: 7 }\n`;
    const a = buildPlan(parseScenario(text, 'a.yaml'));
    const b = buildPlan(parseScenario(text, 'b.yaml'));
    expect(a.phases.map((p) => Array.from(p.arrivalsMs))).toEqual(b.phases.map((p) => Array.from(p.arrivalsMs)));
  });

  // A phase that restarted its count at 0 would fire an arrival at its start whatever its rate: many short
  // phases would send far above their rate (200 × {100ms, 1 rpm} would plan 200 requests in 20 s: 600 rpm).
  describe('one arrival process across phases (the expected count runs on across phase boundaries)', () => {
    it('200 phases of {100ms, 1 rpm} plan what 20 s at 1 rpm plans: one request, at the start', () => {
      const plan = buildPlan(
        scenarioOf(Array.from({ length: 200 }, (_, i) => ({ name: `p${i}`, duration: '100ms', rpm: 1 }))),
      );
      expect(plan.durationMs).toBe(20_000);
      expect(allArrivals(plan)).toEqual([0]);
      expect(plan.phases.filter((p) => p.arrivalsMs.length === 0)).toHaveLength(199);
    });

    it('1,000 phases of {1ms, 300 rpm} plan 5 requests 200 ms apart, as 1 s at 300 rpm does', () => {
      const plan = buildPlan(
        scenarioOf(Array.from({ length: 1000 }, (_, i) => ({ name: `p${i}`, duration: '1ms', rpm: 300 }))),
      );
      expect(allArrivals(plan)).toEqual(Array.from({ length: 5 }, (_, i) => i * 200));
    });

    it('a constant rate split at a boundary that is not a whole count plans the same arrivals as one phase', () => {
      const split = buildPlan(
        scenarioOf([
          { name: 'a', duration: '90s', rpm: 1 },
          { name: 'b', duration: '90s', rpm: 1 },
        ]),
      );
      expect(split.phases.map((p) => Array.from(p.arrivalsMs))).toEqual([[0, 60_000], [120_000]]);
    });

    it('a ramp split into two ramps plans the same arrivals as the whole ramp', () => {
      const whole = allArrivals(buildPlan(scenarioOf([{ name: 'r', duration: '150s', fromRpm: 7, toRpm: 333 }])));
      const split = allArrivals(
        buildPlan(
          scenarioOf([
            { name: 'r1', duration: '70s', fromRpm: 7, toRpm: 7 + (326 * 70) / 150 },
            { name: 'r2', duration: '80s', fromRpm: 7 + (326 * 70) / 150, toRpm: 333 },
          ]),
        ),
      );
      expect(split).toHaveLength(whole.length);
      split.forEach((t, i) => expect(t).toBeCloseTo(whole[i]!, 2));
    });

    it('Poisson arrivals continue their running sum: 600 phases of 1 s plan what one 10-minute phase plans from the same seed', () => {
      const poisson = { process: 'poisson', seed: 5 };
      const whole = allArrivals(buildPlan(scenarioOf([{ name: 'all', duration: '10m', rpm: 120 }], poisson)));
      const split = allArrivals(
        buildPlan(
          scenarioOf(
            Array.from({ length: 600 }, (_, i) => ({ name: `s${i}`, duration: '1s', rpm: 120 })),
            poisson,
          ),
        ),
      );
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

describe('an arrival exactly on a band edge (review)', () => {
  it('goes to the lower band, as the spec says (≤ 200 rpm → 4 s), on rising and falling ramps', () => {
    const plan = buildPlan(
      parseScenario(
        'name: e\ndescription: e\nphases:\n  - { name: up, duration: 2m, fromRpm: 100, toRpm: 300 }\n  - { name: down, duration: 2m, fromRpm: 300, toRpm: 100 }\n',
        'e.yaml',
      ),
    );
    const [up, down] = plan.phases;
    // At 200 rpm, the middle of each ramp: an arrival falls exactly there (whole counts on each side).
    expect([...up!.arrivalsMs]).toContain(60_000);
    expect(up!.bands.map((b) => [b.band?.band, b.arrivals])).toEqual([
      ['burst', 151],
      ['spike', 249],
    ]);
    expect(sliceIndexAt(up!.bands, 60_000)).toBe(0);
    expect(sliceIndexAt(down!.bands, down!.startMs + 60_000)).toBe(1);
    expect(down!.bands.map((b) => b.band?.band)).toEqual(['spike', 'burst']);
  });
});

describe('planNotes on band slices', () => {
  it('says which band falls in the warm-up and which holds too few requests to pass its p95', () => {
    const plan = buildPlan(
      parseScenario(
        'name: r\ndescription: r\nphases:\n  - { name: ramp, duration: 2m, fromRpm: 60, toRpm: 160, warmup: 1m }\n  - { name: short, duration: 30s, rpm: 100 }\n',
        'r.yaml',
      ),
    );
    expect(planNotes(plan)).toEqual([
      'phase ramp: its 60–100 rpm part (sustained band) falls in the warm-up: its p95 is not judged',
      'phase short: it holds 50 requests after the warm-up, too few to show its p95 under the target (at least 72): that check can fail but not pass',
    ]);
  });

  it('counts the arrivals intended before a time, across phases, up to a most', () => {
    // warm-up at 100 rpm (one every 600 ms) for 2 min, then 200 rpm (one every 300 ms).
    const plan = buildPlan(parseScenario(BURST, 'burst.yaml'));
    const before = (ms: number): number => allArrivals(plan).filter((t) => t < ms).length;
    for (const ms of [0, 1, 600, 60_000, 120_000, 121_000, 480_000])
      expect(arrivalsBefore(plan, ms, Infinity)).toBe(before(ms));
    expect(arrivalsBefore(plan, 480_000, 64)).toBe(64);
  });
});

describe('buildPlan, mode deid', () => {
  const deid = (rpm: number) =>
    parseScenario(
      `name: d\ndescription: d\nmode: deid\nphases:\n  - { name: a, duration: 1m, rpm: ${rpm} }\n`,
      'd.yaml',
    );
  const pieces = (counts: number[]) => {
    let i = 0;
    return () => counts[i++ % counts.length]!;
  };

  it("lays each document's pieces out as requests at its time, with rates in requests", () => {
    const plan = buildPlan(deid(4), { piecesOfNextDocument: pieces([1, 3, 2, 2]) });
    expect(plan.documents!.count).toBe(4);
    expect([...plan.documents!.firstSeq]).toEqual([0, 1, 4, 6, 8]);
    expect(plan.arrivals).toBe(8);
    expect([...plan.phases[0]!.arrivalsMs]).toEqual([0, 15_000, 15_000, 15_000, 30_000, 30_000, 45_000, 45_000]);
    expect(plan.phases[0]).toMatchObject({
      fromRpm: 8,
      toRpm: 8,
      offeredRpm: 8,
      documents: { count: 4, fromRpm: 4, toRpm: 4 },
    });
    expect(() => buildPlan(deid(4))).toThrow(/needs the pieces of its documents/);
  });

  it('notes a phase whose request rate lies near a band edge, which another payload could cross', () => {
    expect(planNotes(buildPlan(deid(50), { piecesOfNextDocument: pieces([2]) }))).toEqual([
      'phase a: its 100 identification requests a minute (50 documents a minute × 2 pieces) lie within 5 % of the 100 rpm band edge: another payload (seed, lengths, split) may put it in the other band',
    ]);
    expect(planNotes(buildPlan(deid(40), { piecesOfNextDocument: pieces([2]) }))).toEqual([]);
  });
});
