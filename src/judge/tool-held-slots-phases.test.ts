/**
 * Drops across a phase: a latency fail whose interval reaches down among the answers rests on the drops all the same,
 * and drops as a phase begins sit in slots the phase before held (src/judge/tool-held-slots.ts).
 */
import { describe, expect, it } from 'vitest';

import { ERRORS, NO_429 } from '../../test/helpers/judge-phase.js';
import { TimeScale } from '../core/index.js';
import { Slice } from '../recorder/index.js';
import { generatorHealth } from './generator-budget.js';
import { evaluateVerdict } from './verdict.js';

/**
 * A run at time scale `k` against the embedded mock (its 20 ms window), its event loop late by `loopWallMs` (p99) and
 * 5 ms more at most, the mock's own delay under its window but for one stall of `mockMaxWallMs`.
 */
const health = (k: number, loopWallMs: number, mockMaxWallMs: number) =>
  generatorHealth(TimeScale.of(k, 'k'), loopWallMs, loopWallMs + 5, {
    p99WallMs: 18,
    maxWallMs: mockMaxWallMs,
    windowWallMs: 20,
    modelMs: Math.max(0, mockMaxWallMs - 20) * k,
  });

describe('a latency fail on drops whose interval reaches down among the answers', () => {
  /**
   * burst.yaml's warm-up at k = 1000: 300 arrivals at 100 rpm, answered in 1.0–2.5 s; the drops begin once the slots
   * filled, a third of the way in (4 of every 7 after that), so the early time blocks hold answers only.
   */
  const warmup = (): Slice => {
    const slice = new Slice({ fromMs: 0, toMs: 180_000 });
    for (let i = 0; i < 300; i++) {
      const t = i * 600;
      if (i >= 100 && i % 7 < 4) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
      else {
        const latencyMs = 1000 + ((i * 37) % 1500);
        slice.add({
          phase: 0,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t,
          result: {
            status: 200,
            attempts: 1,
            lastSentAtMs: t,
            endAtMs: t + latencyMs + 75_000,
            latencyMs,
            serviceMs: latencyMs,
            retryAfterS: [],
          },
        });
      }
    }
    return slice;
  };
  const latencyCheck = (slice: Slice) =>
    evaluateVerdict({
      phases: [
        {
          name: 'warmup',
          bands: [
            {
              band: { band: 'sustained', upToRpm: 100, p95TargetMs: 2500, specWording: '' },
              fromRpm: 100,
              toRpm: 100,
              steadyPlanned: 300,
              steady: slice,
            },
          ],
          planned: 300,
          inFlight: { maxInFlight: 128, neededAtTarget: (100 / 60_000) * 2500, targetMs: 2500 },
          steady: slice,
          all: slice,
          envelope: NO_429,
          thresholds: [],
          errorCheck: null,
        },
      ],
      documentedTargets: true,
      generator: health(1000, 10, 15),
    }).checks.find((c) => c.id === 'latency_p95_target')!;

  it('rests on the drops (the answers alone meet the target): the tool held the slots, so inconclusive', () => {
    const c = latencyCheck(warmup());
    // The interval's lower bound lies among the answers, under twice the target.
    expect(c.interval![0]).toBeLessThan(5000);
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toContain('while the tool itself held the slot of each answered request 75.00s of model time');
  });
});

describe('drops as a phase begins, in slots held by the phase before it', () => {
  /**
   * burst.yaml's recovery at k = 500: 300 arrivals at 100 rpm, 12 dropped in its first seconds, the rest answered in
   * 2 s and held 10 s beyond it (the window alone); the burst before it, at 200 rpm, held its answers 60 s beyond.
   */
  const recovery = (): Slice => {
    const slice = new Slice({ fromMs: 0, toMs: 180_000 });
    for (let i = 0; i < 300; i++) {
      const t = i * 600;
      if (i < 12) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
      else
        slice.add({
          phase: 0,
          intendedAtMs: t,
          outcome: 'ok',
          firedAtMs: t,
          result: {
            status: 200,
            attempts: 1,
            lastSentAtMs: t,
            endAtMs: t + 12_000,
            latencyMs: 2000,
            serviceMs: 2000,
            retryAfterS: [],
          },
        });
    }
    return slice;
  };
  const errorCheck = (before: { name: string; peakRpm: number; heldBeyondLatencyMs: number } | undefined) =>
    evaluateVerdict({
      phases: [
        {
          name: 'recovery',
          bands: [],
          planned: 300,
          inFlight: {
            maxInFlight: 128,
            neededAtTarget: (100 / 60_000) * 2500,
            targetMs: 2500,
            ...(before === undefined ? {} : { before }),
          },
          steady: recovery(),
          all: recovery(),
          envelope: NO_429,
          thresholds: [],
          errorCheck: ERRORS,
        },
      ],
      documentedTargets: false,
      generator: health(500, 10, 15),
    }).checks.find((c) => c.id === 'error_rate')!;

  it("counts the phase before's rate and holding: 200 rpm × (2.5 s + 60 s) = 209 slots, the drops the tool's", () => {
    // Its own 100 rpm × (2.5 s + 10 s) is 21 slots: not enough to excuse; nor is a burst before it that held little.
    expect(errorCheck(undefined).status).toBe('fail');
    expect(errorCheck({ name: 'burst', peakRpm: 200, heldBeyondLatencyMs: 10_000 }).status).toBe('fail');
    const c = errorCheck({ name: 'burst', peakRpm: 200, heldBeyondLatencyMs: 60_000 });
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toContain(
      "held the slot of each answered request of phase burst 60.00s of model time longer than its latency (120ms of wall time: the tool's own overheads and the embedded mock's 20ms time-scale window, which latency counts once or not at all but the slot holds k = 500 times over): at phase burst's peak rate of 200 rpm (its requests held slots as this phase began) a service meeting its target of 2.50s would need 209 slots, more than the 128",
    );
  });
});
