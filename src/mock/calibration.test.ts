/**
 * The profiles' calibration, on a virtual clock: `nominal` meets every documented p95 target
 * with margin inside the envelope and sees no 429 there; `degraded` is clearly over at 200 rpm;
 * `tight` gives 429s at the documented rates; `stall` holds responses exactly as documented.
 */
import { describe, expect, it } from 'vitest';

import { latencyBandFor } from '../spec/index.js';
import { PROFILES } from './profiles.js';
import { latenciesOf, quantile, simulateIdentification, simulateSchedule } from './simulate.js';

const MINUTE = 60_000;

/** Inside the envelope: 100 rpm for 10 min, 200 rpm for 5 min, 300 rpm for 2 min (the bucket allows 2.5). */
const ENVELOPE = [
  { rpm: 100, durationMs: 10 * MINUTE },
  { rpm: 200, durationMs: 5 * MINUTE },
  { rpm: 300, durationMs: 2 * MINUTE },
];

describe('profile calibration (virtual clock)', () => {
  it.each(ENVELOPE)('nominal at $rpm rpm: p95 at most 80 % of the target, every request 200', ({ rpm, durationMs }) => {
    const result = simulateIdentification(PROFILES.nominal, rpm, durationMs);
    const target = latencyBandFor(rpm)!.p95TargetMs;
    expect(result.outcomes.every((o) => o.outcome.kind === 'ok')).toBe(true);
    expect(result.outcomes.length).toBe(Math.ceil((rpm * durationMs) / MINUTE));
    expect(quantile(latenciesOf(result), 0.95)).toBeLessThan(0.8 * target);
  });

  it('nominal latency grows with load (batch occupancy)', () => {
    const p95 = ENVELOPE.map(({ rpm, durationMs }) =>
      quantile(latenciesOf(simulateIdentification(PROFILES.nominal, rpm, durationMs)), 0.95),
    );
    expect(p95[0]!).toBeLessThan(p95[1]!);
    expect(p95[1]!).toBeLessThan(p95[2]!);
  });

  it('degraded at 200 rpm: p95 more than 25 % over the 4 s target', () => {
    const result = simulateIdentification(PROFILES.degraded, 200, 5 * MINUTE);
    expect(quantile(latenciesOf(result), 0.95)).toBeGreaterThan(1.25 * 4000);
  });

  it('degraded at 100 rpm is over its 2.5 s target too', () => {
    const result = simulateIdentification(PROFILES.degraded, 100, 10 * MINUTE);
    expect(quantile(latenciesOf(result), 0.95)).toBeGreaterThan(2500);
  });

  it('tight gives 429s at the sustained 100 rpm, within the first two minutes', () => {
    const result = simulateIdentification(PROFILES.tight, 100, 5 * MINUTE);
    const first429 = result.outcomes.find((o) => o.outcome.kind === 'rate_limited');
    expect(first429).toBeDefined();
    expect(first429!.atMs).toBeLessThan(2 * MINUTE);
  });

  it('stall holds every response that would leave inside 8–10 s of each 10 s until the window ends', () => {
    const result = simulateIdentification(PROFILES.stall, 100, 5 * MINUTE);
    for (const { atMs, outcome } of result.outcomes) {
      const readyMs = atMs + 20;
      const phase = (readyMs - 8000 + 100_000) % 10_000;
      const expected = phase < 2000 ? readyMs + (2000 - phase) - atMs : 20;
      expect(outcome).toMatchObject({ kind: 'ok', totalMs: expected });
    }
  });

  it('the same seed gives the same latencies; another seed does not', () => {
    const a = latenciesOf(simulateIdentification(PROFILES.nominal, 100, MINUTE, 5));
    const b = latenciesOf(simulateIdentification(PROFILES.nominal, 100, MINUTE, 5));
    const c = latenciesOf(simulateIdentification(PROFILES.nominal, 100, MINUTE, 6));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});

describe('autoscaling on nominal (calibrated so that the documented spike scales up and back down)', () => {
  /** scenarios/spike.yaml: 100 rpm for 3 min, a 2-minute ramp to 300, 1 min at 300, 3 min at 100. */
  const SPIKE = [
    { durationMs: 3 * MINUTE, fromRpm: 100, toRpm: 100 },
    { durationMs: 2 * MINUTE, fromRpm: 100, toRpm: 300 },
    { durationMs: 1 * MINUTE, fromRpm: 300, toRpm: 300 },
    { durationMs: 3 * MINUTE, fromRpm: 100, toRpm: 100 },
  ];

  it('the documented spike scales the fleet up during the ramp or the spike, and back down in the 3 minutes after', () => {
    const result = simulateSchedule(PROFILES.nominal, SPIKE);
    const up = result.fleet.find((s) => s.scaleUps > 0);
    expect(up, 'a scale-up').toBeDefined();
    expect(up!.atMs).toBeGreaterThanOrEqual(3 * MINUTE);
    expect(up!.atMs).toBeLessThan(6 * MINUTE);
    // The new replica serves after its 45 s warm-up: at the latest early in the `after` phase.
    const ready3 = result.fleet.find((s) => s.ready === 3);
    expect(ready3!.atMs - up!.atMs).toBeGreaterThan(44_000); // sampled at arrivals, up to 0.6 s apart
    expect(ready3!.atMs).toBeLessThan(6.5 * MINUTE);
    // Recovery: drained back to the minimum of 2 within the `after` phase.
    const down = result.fleet.find((s) => s.scaleDowns > 0 && s.ready === 2);
    expect(down, 'a scale-down').toBeDefined();
    expect(down!.atMs).toBeGreaterThan(6 * MINUTE);
    expect(down!.atMs).toBeLessThan(9 * MINUTE);
    expect(result.outcomes.every((o) => o.outcome.kind === 'ok')).toBe(true);
  });

  it('the sustained 100 rpm and the 200 rpm burst never scale up', () => {
    expect(simulateIdentification(PROFILES.nominal, 100, 10 * MINUTE).fleet.at(-1)!.scaleUps).toBe(0);
    expect(simulateIdentification(PROFILES.nominal, 200, 5 * MINUTE).fleet.at(-1)!.scaleUps).toBe(0);
  });
});
