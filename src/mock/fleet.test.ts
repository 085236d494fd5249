import { describe, expect, it } from 'vitest';

import { ManualClock } from '../core/clock.js';
import { createRng } from '../core/rng.js';
import { Fleet, type FleetConfig } from './fleet.js';
import { serviceTimeModel } from './latency-model.js';

const autoscaled: FleetConfig = {
  minReplicas: 1,
  maxReplicas: 3,
  slotsPerReplica: 2,
  autoscale: {
    evaluateEveryMs: 10_000,
    scaleUpUtilisation: 0.7,
    scaleUpAfterMs: 30_000,
    warmupMs: 60_000,
    scaleDownUtilisation: 0.25,
    scaleDownAfterMs: 60_000,
  },
};

describe('Fleet', () => {
  it('serves FIFO on the least busy replica and reports busy and waiting work', () => {
    const clock = new ManualClock();
    const done: number[] = [];
    const fleet = new Fleet({ minReplicas: 1, maxReplicas: 1, slotsPerReplica: 2 }, () => 100, clock);
    for (let i = 0; i < 3; i++) fleet.submit({ inputTokens: i, outputTokens: 0 }, (t) => done.push(t.work.inputTokens));
    expect(fleet.snapshot()).toMatchObject({ busySlots: 2, waiting: 1 });
    clock.advanceTo(100);
    expect(done).toEqual([0, 1]);
    clock.advanceTo(200);
    expect(done).toEqual([0, 1, 2]);
  });

  it('adds a replica after sustained high utilisation, serving only after its warm-up, then drains it when idle', () => {
    const clock = new ManualClock();
    const fleet = new Fleet(autoscaled, () => 1_000_000, clock); // requests that keep the slots busy
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    expect(fleet.snapshot()).toMatchObject({ ready: 1, warming: 0, waiting: 1 });
    clock.advanceTo(39_999); // high since the first sample at 10 s; 30 s later is 40 s
    expect(fleet.snapshot()).toMatchObject({ ready: 1, warming: 0 });
    clock.advanceTo(40_000);
    expect(fleet.snapshot()).toMatchObject({ ready: 1, warming: 1, scaleUps: 1 });
    clock.advanceTo(99_999);
    expect(fleet.snapshot()).toMatchObject({ ready: 1, warming: 1, waiting: 1 });
    clock.advanceTo(100_000); // warm: takes the waiting request
    expect(fleet.snapshot()).toMatchObject({ ready: 2, warming: 0, waiting: 0, busySlots: 3 });
    fleet.stop();
  });

  it('samples from its first request, not from its creation: the grid sits where the load starts', () => {
    const clock = new ManualClock();
    const fleet = new Fleet(autoscaled, () => 1_000_000, clock);
    clock.advanceTo(7_000); // idle since creation: no sample is due yet, whatever the grid
    for (let i = 0; i < 3; i++) fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    // Samples at 17 s, 27 s, …: high since 17 s, 30 s later is 47 s (not 40 s, as a grid from creation would give).
    clock.advanceTo(46_999);
    expect(fleet.snapshot()).toMatchObject({ warming: 0, scaleUps: 0 });
    clock.advanceTo(47_000);
    expect(fleet.snapshot()).toMatchObject({ warming: 1, scaleUps: 1 });
    fleet.stop();
  });

  it('drains an added replica after sustained low utilisation', () => {
    const clock = new ManualClock();
    const fleet = new Fleet(autoscaled, () => 100_000, clock);
    for (let i = 0; i < 3; i++) fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    clock.advanceTo(100_000); // scaled up at 40 s, warm at 100 s; the third request starts now
    expect(fleet.snapshot()).toMatchObject({ ready: 2, busySlots: 1, scaleUps: 1 });
    // From 100 s one request on 4 slots is 0.25, not below it; the last request ends at 200 s, so the
    // interval 200–210 s is the first below 0.25 (averaged), and 60 s after that evaluation is 270 s.
    clock.advanceTo(269_999);
    expect(fleet.snapshot()).toMatchObject({ ready: 2, scaleDowns: 0 });
    clock.advanceTo(270_000);
    expect(fleet.snapshot()).toMatchObject({ ready: 1, draining: 0, scaleDowns: 1 });
    fleet.stop();
  });

  it('averages utilisation over each interval: work there only at the instant of an evaluation does not read as high', () => {
    const clock = new ManualClock();
    const fleet = new Fleet(autoscaled, () => 1_000_000, clock);
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {}); // anchors the grid at 0 (evaluations at 10 s, 20 s, …)
    clock.advanceTo(29_990);
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {});
    fleet.submit({ inputTokens: 1, outputTokens: 1 }, () => {}); // 2 busy + 1 waiting on 2 slots from 29.99 s: 1.5
    // Sampled at the instant, 30 s would read 1.5 and start the 30 s count (a scale-up at 60 s). Averaged,
    // 20–30 s reads about 0.5 (one slot of two busy), under 0.7: high from the 40 s evaluation on, so 70 s.
    clock.advanceTo(69_999);
    expect(fleet.snapshot()).toMatchObject({ warming: 0, scaleUps: 0 });
    clock.advanceTo(70_000);
    expect(fleet.snapshot()).toMatchObject({ warming: 1, scaleUps: 1 });
    fleet.stop();
  });

  it('never drains below the minimum', () => {
    const clock = new ManualClock();
    const fleet = new Fleet({ ...autoscaled, minReplicas: 2 }, () => 10, clock);
    clock.advanceTo(600_000);
    expect(fleet.snapshot()).toMatchObject({ ready: 2, scaleDowns: 0 });
    fleet.stop();
  });

  it('makes service time grow with input tokens, output tokens and batch occupancy', () => {
    const model = serviceTimeModel(
      { overheadMs: 50, prefillMsPerToken: 0.5, decodeMsPerToken: 4, batchSlowdown: 0.1, jitterSigma: 0 },
      createRng(1),
    );
    const base = model({ inputTokens: 100, outputTokens: 100 }, 1);
    expect(base).toBe(50 + 50 + 400);
    expect(model({ inputTokens: 200, outputTokens: 100 }, 1)).toBeGreaterThan(base);
    expect(model({ inputTokens: 100, outputTokens: 200 }, 1)).toBeGreaterThan(base);
    expect(model({ inputTokens: 100, outputTokens: 100 }, 5)).toBe(50 + 50 + 400 * 1.4);
  });
});
