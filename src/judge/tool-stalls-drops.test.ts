/**
 * Drops at maxInFlight when the generator and the embedded mock were both late: their stalls stack on the slots a
 * service meeting its target already holds. Reproduces a false FAIL of a correct service seen in bench:time-scale
 * (sustained.yaml at k = 200 on a busy machine, nominal mock): 87 of 1,000 dropped; the generator's worst stall
 * (41.2 s of model time) and the mock's (200.5 ms of wall time, 40.1 s of model time) each fill fewer than the 128
 * slots alone, so neither rule fired and the error check failed the service.
 */
import { describe, expect, it } from 'vitest';

import { phaseErrorCheck } from '../../test/helpers/judge-phase.js';
import { TimeScale } from '../core/index.js';
import { Slice } from '../recorder/index.js';
import { generatorHealth } from './generator-budget.js';

const K = 200;
const TARGET_MS = 2500;

/** 1,000 arrivals at 100 rpm; `drops` of them dropped (spread out); the rest sent `lagMs` late, answered in 1.7 s
 * and held `heldMs` more in their slot. */
function phase(drops: number, lagMs: number, latencyMs = 1700, heldMs = 4000): Slice {
  const slice = new Slice({ fromMs: 0, toMs: 600_000 });
  for (let i = 0; i < 1000; i++) {
    const t = i * 600;
    if ((i * drops) % 1000 < drops) slice.add({ phase: 0, intendedAtMs: t, outcome: 'dropped' });
    else
      slice.add({
        phase: 0,
        intendedAtMs: t,
        outcome: 'ok',
        firedAtMs: t + lagMs,
        result: {
          status: 200,
          attempts: 1,
          lastSentAtMs: t + lagMs,
          endAtMs: t + lagMs + latencyMs + heldMs,
          latencyMs,
          serviceMs: latencyMs,
          retryAfterS: [],
        },
      });
  }
  return slice;
}

/** The error check of one phase of 100 rpm, 128 slots, at k = 200, with the mock's worst stall `mockMaxWallMs`. */
function errorCheck(slice: Slice, mockMaxWallMs: number, loopMaxWallMs = 134.5) {
  const generator = generatorHealth(TimeScale.of(K, 'k'), 112.8, loopMaxWallMs, {
    p99WallMs: Math.min(186, mockMaxWallMs),
    maxWallMs: mockMaxWallMs,
    windowWallMs: 20,
    modelMs: Math.max(0, mockMaxWallMs - 20) * K,
  });
  const inFlight = { maxInFlight: 128, neededAtTarget: (100 / 60_000) * TARGET_MS, targetMs: TARGET_MS };
  return phaseErrorCheck(slice, 1000, inFlight, generator);
}

describe('drops while the generator and the embedded mock were both late', () => {
  it("are the tool's when their stalls, on top of the slots a compliant service holds, fill maxInFlight: inconclusive (it failed the service before)", () => {
    const c = errorCheck(phase(87, 41_200), 200.5);
    expect(c.status).toBe('inconclusive');
    expect(c.reason).toMatch(
      /^87 of 1000 \(8\.70 %\), but 87 requests were dropped at the client's maxInFlight while the tool was late: its stalls \(the generator's worst, 41\.22s of model time; the embedded mock's, 181ms of wall time beyond its window \(36\.10s of model time\)\) leave 128 arrivals overdue at the phase's peak rate of 100 rpm, on top of the 9 slots its answers hold \(their mean service time 1\.70s, at most the target of 2\.50s, plus the tool's holding of 4\.00s each\): together more than the 128 slots, so the drops may be the tool's, not the service's$/,
    );
  });

  it("stand as the service's when the tool's stalls and a compliant service's slots together stay under maxInFlight", () => {
    // A mock that kept up (20 ms, its window) and a generator 5 s of model time late: (5 + 0.4 + 2.5 + 4) s × 100 rpm
    // = 20 slots of 128.
    expect(errorCheck(phase(87, 5000), 20, 25).status).toBe('fail');
  });

  it("stand as the service's when its own answers fill the slots: a slow service drops at any k", () => {
    // Answers of 90 s at 100 rpm hold 150 slots by themselves: the drops are the service's, stalls or not.
    expect(errorCheck(phase(87, 41_200, 90_000), 200.5).status).toBe('fail');
  });
});
