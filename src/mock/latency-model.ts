/**
 * Service time of one request on one replica, in model milliseconds:
 *   (overhead + prefill × input tokens + decode × output tokens × (1 + batchSlowdown × (occupancy − 1)))
 *   × a log-normal jitter factor (median 1)
 * Prefill grows with the input, decode with the output (capped at 300 tokens by the detector),
 * and each decode step slows as more sequences share the replica's batch (continuous batching).
 */
import { nextLogNormalFactor, type Rng } from '../core/index.js';

export interface LatencyModel {
  /** Fixed cost per request: gateway, tokenisation, response (ms). */
  readonly overheadMs: number;
  /** Prefill cost per input token (ms). */
  readonly prefillMsPerToken: number;
  /** Decode cost per output token with the batch holding one sequence (ms). */
  readonly decodeMsPerToken: number;
  /** Fractional slowdown of a decode step per extra sequence in the batch. */
  readonly batchSlowdown: number;
  /** Sigma of the log-normal jitter (0 = none). */
  readonly jitterSigma: number;
}

/** The work a request brings: what the service time depends on. */
export interface Work {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export type ServiceTimeFn = (work: Work, batchOccupancy: number) => number;

/** A service-time function drawing its jitter from `rng`. */
export function serviceTimeModel(model: LatencyModel, rng: Rng): ServiceTimeFn {
  return (work, batchOccupancy) => {
    const decodeStepMs = model.decodeMsPerToken * (1 + model.batchSlowdown * Math.max(0, batchOccupancy - 1));
    const baseMs = model.overheadMs + model.prefillMsPerToken * work.inputTokens + decodeStepMs * work.outputTokens;
    return baseMs * nextLogNormalFactor(rng, model.jitterSigma);
  };
}
