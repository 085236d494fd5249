/**
 * Scenario → Plan: every phase laid end to end on the model timeline, with its arrival offsets,
 * offered rate and the spec's load band and p95 target. Nothing here runs or sends anything.
 */
import { createRng } from '../core/rng.js';
import { SCENARIO_BOUNDS, type Scenario } from '../scenario/index.js';
import { planArrivals } from './arrivals.js';
import { type BandSlice, bandSlices } from './bands.js';

export interface PlannedPhase {
  readonly index: number;
  readonly name: string;
  /** Offset of the phase start from the run start (model ms). */
  readonly startMs: number;
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
  /** Time-averaged offered rate (requests per minute). */
  readonly offeredRpm: number;
  readonly peakRpm: number;
  /**
   * The spec's bands the phase's arrivals fall in, by the rate at each arrival's intended time, in
   * time order: one for a constant rate, up to four for a ramp (see bands.ts).
   */
  readonly bands: readonly BandSlice[];
  readonly warmupMs: number;
  /** Arrival offsets from the run start (model ms), ascending. */
  readonly arrivalsMs: Float64Array;
}

export interface Plan {
  readonly scenario: Scenario;
  readonly phases: readonly PlannedPhase[];
  /** Model time from the first arrival slot to the end of the last phase (ms). */
  readonly durationMs: number;
  readonly arrivals: number;
  /** k: the plan runs k times fast on the wall clock (1 against real environments). */
  readonly timeScale: number;
}

export function buildPlan(scenario: Scenario, options: { timeScale?: number } = {}): Plan {
  // One arrival process for the whole plan, its generator seeded by the scenario, so arrivals are
  // repeatable and a phase boundary does not restart the process.
  // The scenario's bound holds for the expected counts; the cap holds it for Poisson draws too.
  const offsets = planArrivals(scenario.phases, scenario.arrivals.process, createRng(scenario.arrivals.seed), SCENARIO_BOUNDS.plannedRequests);
  let startMs = 0;
  const phases = scenario.phases.map((phase, index): PlannedPhase => {
    const arrivalsMs = offsets[index]!.map((t) => t + startMs);
    const offeredRpm = (phase.fromRpm + phase.toRpm) / 2;
    const planned: PlannedPhase = {
      index,
      name: phase.name,
      startMs,
      durationMs: phase.durationMs,
      fromRpm: phase.fromRpm,
      toRpm: phase.toRpm,
      offeredRpm,
      peakRpm: Math.max(phase.fromRpm, phase.toRpm),
      bands: bandSlices({ startMs, durationMs: phase.durationMs, fromRpm: phase.fromRpm, toRpm: phase.toRpm, warmupMs: phase.warmupMs }, arrivalsMs),
      warmupMs: phase.warmupMs,
      arrivalsMs,
    };
    startMs += phase.durationMs;
    return planned;
  });
  return {
    scenario,
    phases,
    durationMs: startMs,
    arrivals: phases.reduce((sum, p) => sum + p.arrivalsMs.length, 0),
    timeScale: options.timeScale ?? 1,
  };
}

/** The plan's arrivals intended before model time `ms`, counted up to `most` (a long plan is not walked whole). */
export function arrivalsBefore(plan: Plan, ms: number, most: number): number {
  let n = 0;
  for (const phase of plan.phases) {
    for (const t of phase.arrivalsMs) {
      if (t >= ms || n >= most) return n;
      n++;
    }
  }
  return n;
}
