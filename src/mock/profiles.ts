/**
 * Named behaviours of the mock, as data. Each profile sets, for identification (GPU, LLM) and
 * obfuscation (CPU, rules), the gateway limits, the fleet and the latency model, plus stall
 * windows and fault rates. The calibration table in docs/guides/mock.md is printed by `npm run calibrate`.
 */
import { IDENTIFICATION_LIMITS, type ProfileName } from '../spec/index.js';
import type { FleetConfig } from './fleet.js';
import type { GatewayLimits } from './gateway.js';
import type { LatencyModel } from './latency-model.js';
import type { StallWindows } from './stall-windows.js';

export interface EndpointProfile {
  readonly limits: GatewayLimits;
  readonly fleet: FleetConfig;
  readonly latency: LatencyModel;
}

/** Probabilities (0–1) of each injected fault, drawn per identification/obfuscation request. */
export interface FaultRates {
  /** The connection is destroyed without a response. */
  readonly resetRate: number;
  /** A 500 with an error body instead of the result. */
  readonly http500Rate: number;
  /** A 200 whose body is not valid JSON. */
  readonly malformedRate: number;
  /** The response is delayed by `slowExtraMs` after it is ready. */
  readonly slowRate: number;
  readonly slowExtraMs: number;
}

export interface MockProfile {
  readonly name: ProfileName;
  readonly description: string;
  readonly identification: EndpointProfile;
  readonly obfuscation: EndpointProfile;
  readonly stall: StallWindows | null;
  readonly faults: FaultRates;
  /**
   * Share (0–1) of the entities it finds that identification leaves out of its answer, chosen by a hash of the
   * entity and the text (the same text gets the same answer): a detector that misses PHI, to see a recall check fail.
   */
  readonly entityDropRate: number;
}

const NO_FAULTS: FaultRates = { resetRate: 0, http500Rate: 0, malformedRate: 0, slowRate: 0, slowExtraMs: 0 };

/** The spec's limits for identification; the queue beyond 128 holds 64 before 429s. */
const SPEC_IDENTIFICATION_LIMITS: GatewayLimits = {
  rate: {
    sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm,
    burstRpm: IDENTIFICATION_LIMITS.burstRpm,
    burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes,
  },
  maxInFlight: IDENTIFICATION_LIMITS.maxInFlight,
  queueLimit: 64,
  timeoutMs: IDENTIFICATION_LIMITS.timeoutS * 1000,
};

const NOMINAL_GPU_FLEET: FleetConfig = {
  minReplicas: 2,
  maxReplicas: 6,
  slotsPerReplica: 8,
  autoscale: {
    evaluateEveryMs: 10_000,
    scaleUpUtilisation: 0.45,
    scaleUpAfterMs: 20_000,
    warmupMs: 45_000,
    scaleDownUtilisation: 0.25,
    scaleDownAfterMs: 120_000,
  },
};

const NOMINAL_GPU_LATENCY: LatencyModel = {
  overheadMs: 60,
  prefillMsPerToken: 0.35,
  decodeMsPerToken: 4,
  batchSlowdown: 0.15,
  jitterSigma: 0.15,
};

/**
 * Obfuscation is rules-based on CPU with "substantially higher" limits (numbers not in the spec;
 * ours): 1,000 rpm sustained, 2,000 rpm for 5 minutes, 512 in flight, a 256-deep queue.
 */
const OBFUSCATION: EndpointProfile = {
  limits: {
    rate: { sustainedRpm: 1000, burstRpm: 2000, burstMinutes: 5 },
    maxInFlight: 512,
    queueLimit: 256,
    timeoutMs: 15_000,
  },
  fleet: { minReplicas: 1, maxReplicas: 1, slotsPerReplica: 64 },
  latency: { overheadMs: 8, prefillMsPerToken: 0.02, decodeMsPerToken: 0, batchSlowdown: 0, jitterSigma: 0.2 },
};

const nominal: MockProfile = {
  name: 'nominal',
  description: 'The documented service: every p95 target met with margin inside the envelope, no 429 inside it.',
  identification: { limits: SPEC_IDENTIFICATION_LIMITS, fleet: NOMINAL_GPU_FLEET, latency: NOMINAL_GPU_LATENCY },
  obfuscation: OBFUSCATION,
  stall: null,
  faults: NO_FAULTS,
  entityDropRate: 0,
};

const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** No limits and no modelled latency: the `zero` profile, for benchmarks. */
const UNLIMITED_ENDPOINT: EndpointProfile = {
  limits: { rate: null, maxInFlight: UNLIMITED, queueLimit: 0, timeoutMs: 15_000 },
  fleet: { minReplicas: 1, maxReplicas: 1, slotsPerReplica: UNLIMITED },
  latency: { overheadMs: 0, prefillMsPerToken: 0, decodeMsPerToken: 0, batchSlowdown: 0, jitterSigma: 0 },
};

export const PROFILES: Readonly<Record<ProfileName, MockProfile>> = {
  nominal,
  degraded: {
    ...nominal,
    name: 'degraded',
    description: 'A fleet short of GPUs (2, no autoscaling) with slow decoding: p95 clearly over target at 200 rpm.',
    identification: {
      limits: SPEC_IDENTIFICATION_LIMITS,
      fleet: { minReplicas: 2, maxReplicas: 2, slotsPerReplica: 8 },
      latency: { overheadMs: 150, prefillMsPerToken: 0.5, decodeMsPerToken: 10, batchSlowdown: 0.1, jitterSigma: 0.25 },
    },
  },
  tight: {
    ...nominal,
    name: 'tight',
    description:
      'Lower limits (30 rpm sustained, 60 rpm for 2 minutes, 16 in flight, queue of 8): 429s at the documented rates.',
    identification: {
      ...nominal.identification,
      limits: {
        rate: { sustainedRpm: 30, burstRpm: 60, burstMinutes: 2 },
        maxInFlight: 16,
        queueLimit: 8,
        timeoutMs: 15_000,
      },
    },
  },
  flaky: {
    ...nominal,
    name: 'flaky',
    description: 'Nominal, plus 2 % each of connection resets, 500s, malformed JSON bodies and 6 s slow responses.',
    faults: { resetRate: 0.02, http500Rate: 0.02, malformedRate: 0.02, slowRate: 0.02, slowExtraMs: 6000 },
  },
  stall: {
    ...nominal,
    name: 'stall',
    description:
      'Fast (20 ms) responses, except that none leaves during 8–10 s of every 10 s (model time from server start).',
    identification: {
      limits: SPEC_IDENTIFICATION_LIMITS,
      fleet: { minReplicas: 4, maxReplicas: 4, slotsPerReplica: 32 },
      latency: { overheadMs: 20, prefillMsPerToken: 0, decodeMsPerToken: 0, batchSlowdown: 0, jitterSigma: 0 },
    },
    stall: { periodMs: 10_000, durationMs: 2000, offsetMs: 8000 },
  },
  zero: {
    ...nominal,
    name: 'zero',
    description: 'No modelled latency and no limits: the mock at full speed, for benchmarks.',
    identification: UNLIMITED_ENDPOINT,
    obfuscation: UNLIMITED_ENDPOINT,
  },
  leaky: {
    ...nominal,
    name: 'leaky',
    description:
      'Nominal, but identification leaves 1 % of the entities it finds out of its answer (the same ones for the same text).',
    entityDropRate: 0.01,
  },
};
