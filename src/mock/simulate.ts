/**
 * Drives an endpoint's gateway and fleet on a virtual clock with constant-rate arrivals of
 * generated clinical notes, and returns every outcome: the calibration of the profiles (the test
 * and `npm run calibrate`) without a socket and without sleeping.
 */
import { ManualClock } from '../core/clock.js';
import { createRng } from '../core/rng.js';
import { generateNote } from '../corpus/index.js';
import { IDENTIFICATION_LIMITS, estimateModelTokens } from '../spec/index.js';
import { Fleet } from './fleet.js';
import { Gateway, type GatewayOutcome } from './gateway.js';
import { serviceTimeModel } from './latency-model.js';
import { detectPhi } from './phi/detect.js';
import type { MockProfile } from './profiles.js';

export interface SimulatedOutcome {
  /** Arrival time on the model clock (ms). */
  readonly atMs: number;
  readonly outcome: GatewayOutcome;
}

export interface SimulationResult {
  readonly outcomes: readonly SimulatedOutcome[];
  /** Replicas ready at the end. */
  readonly readyReplicas: number;
}

export function simulateIdentification(profile: MockProfile, rpm: number, durationMs: number, seed = 1): SimulationResult {
  const clock = new ManualClock();
  const endpoint = profile.identification;
  const fleet = new Fleet(endpoint.fleet, serviceTimeModel(endpoint.latency, createRng(seed)), clock);
  const gateway = new Gateway(endpoint.limits, fleet, clock, profile.stall);
  const textRng = createRng(seed + 1);
  const outcomes: SimulatedOutcome[] = [];
  const spacingMs = 60_000 / rpm;
  for (let i = 0; i * spacingMs < durationMs; i++) {
    const atMs = i * spacingMs;
    clock.advanceTo(atMs);
    const text = generateNote(textRng);
    const work = {
      inputTokens: estimateModelTokens(text),
      outputTokens: detectPhi(text, IDENTIFICATION_LIMITS.outputTokenCap).outputTokens,
    };
    gateway.submit('calibration', work, (outcome) => outcomes.push({ atMs, outcome }));
  }
  // Let everything in flight finish (or time out).
  clock.advanceTo(durationMs + endpoint.limits.timeoutMs + 1);
  const readyReplicas = fleet.snapshot().ready;
  fleet.stop();
  outcomes.sort((a, b) => a.atMs - b.atMs);
  return { outcomes, readyReplicas };
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
