/**
 * Drives an endpoint's gateway and fleet on a virtual clock with constant-rate arrivals of
 * generated clinical notes, and returns every outcome: the calibration of the profiles (the test
 * and `npm run calibrate`) without a socket and without sleeping.
 */
import { createRng, ManualClock } from '../core/index.js';
import { estimateModelTokens, IDENTIFICATION_LIMITS } from '../spec/index.js';
import { generateNote } from '../texts/index.js';
import { Fleet } from './fleet.js';
import { Gateway, type GatewayOutcome } from './gateway.js';
import { serviceTimeModel } from './latency-model.js';
import { detectPhi } from './phi/detect.js';
import type { MockProfile } from './profiles.js';

interface SimulatedOutcome {
  /** Arrival time on the model clock (ms). */
  readonly atMs: number;
  readonly outcome: GatewayOutcome;
}

/** The fleet's size at one instant of the simulation (model ms). */
interface FleetSample {
  readonly atMs: number;
  readonly ready: number;
  readonly warming: number;
  readonly scaleUps: number;
  readonly scaleDowns: number;
}

interface SimulationResult {
  readonly outcomes: readonly SimulatedOutcome[];
  /** Replicas ready at the end. */
  readonly readyReplicas: number;
  /** The fleet whenever its size changed (and at the start). */
  readonly fleet: readonly FleetSample[];
}

/** A stretch of constant or linearly ramping rate, as a scenario's phase (rpm). */
interface RateSegment {
  readonly durationMs: number;
  readonly fromRpm: number;
  readonly toRpm: number;
}

export function simulateIdentification(
  profile: MockProfile,
  rpm: number,
  durationMs: number,
  seed = 1,
): SimulationResult {
  return simulateSchedule(profile, [{ durationMs, fromRpm: rpm, toRpm: rpm }], seed);
}

/** Arrival times (model ms) of a schedule: evenly spaced at the rate of each instant. */
function arrivalsOf(segments: readonly RateSegment[]): number[] {
  const times: number[] = [];
  let startMs = 0;
  for (const s of segments) {
    const rpmAt = (t: number): number => s.fromRpm + ((s.toRpm - s.fromRpm) * (t - startMs)) / s.durationMs;
    if (s.fromRpm === s.toRpm) {
      // By multiplication, not summing, so that a constant rate gives exactly ⌈rpm × minutes⌉ arrivals.
      for (let i = 0; i * (60_000 / s.fromRpm) < s.durationMs; i++) times.push(startMs + i * (60_000 / s.fromRpm));
    } else {
      for (let t = startMs; t < startMs + s.durationMs; t += 60_000 / rpmAt(t)) times.push(t);
    }
    startMs += s.durationMs;
  }
  return times;
}

/** Like simulateIdentification, over a schedule of rates (a scenario's phases). */
export function simulateSchedule(profile: MockProfile, segments: readonly RateSegment[], seed = 1): SimulationResult {
  const clock = new ManualClock();
  const endpoint = profile.identification;
  const fleet = new Fleet(endpoint.fleet, serviceTimeModel(endpoint.latency, createRng(seed)), clock);
  const gateway = new Gateway(endpoint.limits, fleet, clock, profile.stall);
  const textRng = createRng(seed + 1);
  const outcomes: SimulatedOutcome[] = [];
  const samples: FleetSample[] = [];
  const sample = (): void => {
    const { ready, warming, scaleUps, scaleDowns } = fleet.snapshot();
    const last = samples.at(-1);
    if (last === undefined || last.ready !== ready || last.warming !== warming)
      samples.push({ atMs: clock.nowMs(), ready, warming, scaleUps, scaleDowns });
  };
  const durationMs = segments.reduce((sum, s) => sum + s.durationMs, 0);
  for (const atMs of arrivalsOf(segments)) {
    clock.advanceTo(atMs);
    sample();
    const text = generateNote(textRng);
    const work = {
      inputTokens: estimateModelTokens(text),
      outputTokens: detectPhi(text, IDENTIFICATION_LIMITS.outputTokenCap).outputTokens,
    };
    gateway.submit('calibration', work, (outcome) => outcomes.push({ atMs, outcome }));
  }
  // Let everything in flight finish (or time out).
  clock.advanceTo(durationMs + endpoint.limits.timeoutMs + 1);
  sample();
  const readyReplicas = fleet.snapshot().ready;
  fleet.stop();
  outcomes.sort((a, b) => a.atMs - b.atMs);
  return { outcomes, readyReplicas, fleet: samples };
}

/** The q-quantile (0–1) of values by the nearest-rank method. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** Latency (ms in the server) of every outcome that got an HTTP answer in time, or 15 s for 504s. */
export function latenciesOf(result: SimulationResult): number[] {
  return result.outcomes.flatMap(({ outcome }) =>
    outcome.kind === 'ok' || outcome.kind === 'timeout' ? [outcome.totalMs] : [],
  );
}
