/**
 * The service's documented numbers (shared/spec/api-spec.md, "Limits"), as data. The mock's
 * defaults, the verdict's p95 targets and the guard's rules all read them from here, so the spec
 * is written down once.
 */

/** PHI Identification limits, per customer ("Throughput" and "Per request"). */
export const IDENTIFICATION_LIMITS = {
  /** "Sustained request rate: 100 requests per minute". */
  sustainedRpm: 100,
  /** "Short-burst rate: 200 requests per minute, for up to 5 minutes". */
  burstRpm: 200,
  burstMaxMinutes: 5,
  /** "Brief bursts up to 300 requests per minute (5 minutes at most)". */
  spikeRpm: 300,
  spikeMaxMinutes: 5,
  /** "Maximum concurrent in-flight requests: 128. Beyond this, requests queue and may receive 429". */
  maxInFlight: 128,
  /** "Timeout: 15 seconds. Exceeding it returns 504". */
  timeoutS: 15,
  /** "Maximum text length: about 1,024 model tokens (roughly 700 to 1,000 characters)". */
  maxTextTokens: 1024,
  /** "Output cap: 300 tokens. Enforced by the server; not configurable". */
  outputTokenCap: 300,
} as const;

/**
 * The rate limit read as a token bucket (the mock's limiter and the verdict's envelope each build
 * their own from these): refilled at sustainedRpm, with room for burstRpm over burstMinutes from full.
 */
export interface EnvelopeLimits {
  /** Refill rate: requests per minute that can run forever. */
  readonly sustainedRpm: number;
  /** A rate that can run for burstMinutes, starting from a full bucket (requests per minute). */
  readonly burstRpm: number;
  readonly burstMinutes: number;
}

/** Tokens in a full bucket: the burst above the refill over the burst minutes, plus the request at time 0. */
export function bucketCapacityTokens(limits: EnvelopeLimits): number {
  return Math.max(0, (limits.burstRpm - limits.sustainedRpm) * limits.burstMinutes) + 1;
}

/** The constant parts of the envelope's margin (src/judge/envelope.ts). */
const ENVELOPE_MARGIN = {
  /** A real bucket may refill in steps this far apart (model ms), not aligned with our clock. */
  refillStepMs: 1000,
  /** Rounding, and requests at the same instant counted on either side. */
  safetyTokens: 1,
} as const;

/** The margin (tokens): a refill step of the real gateway, and one token for rounding and ties. */
export function envelopeMarginTokens(limits: EnvelopeLimits): number {
  return (limits.sustainedRpm / 60_000) * ENVELOPE_MARGIN.refillStepMs + ENVELOPE_MARGIN.safetyTokens;
}

/** A load band of the spec's "Latency expectations (95th percentile)" table. */
export interface LatencyBand {
  /** Stable id used in reports. */
  readonly band: 'sustained' | 'burst' | 'spike';
  /** The band covers offered rates up to and including this (requests per minute). */
  readonly upToRpm: number;
  /** The p95 must be under this (milliseconds). */
  readonly p95TargetMs: number;
  /** The spec's own words for the band. */
  readonly specWording: string;
}

export const LATENCY_BANDS: readonly LatencyBand[] = [
  {
    band: 'sustained',
    upToRpm: 100,
    p95TargetMs: 2500,
    specWording: 'Up to 100 requests per minute: under 2.5 seconds',
  },
  { band: 'burst', upToRpm: 200, p95TargetMs: 4000, specWording: '100 to 200 requests per minute: under 4 seconds' },
  {
    band: 'spike',
    upToRpm: 300,
    p95TargetMs: 5000,
    specWording: 'Brief bursts up to 300 requests per minute (5 minutes at most): under 5 seconds',
  },
];

/** The band whose p95 target applies at an offered rate, or undefined above 300 rpm (undocumented). */
export function latencyBandFor(offeredRpm: number): LatencyBand | undefined {
  return LATENCY_BANDS.find((b) => offeredRpm <= b.upToRpm);
}

/** "Other rules" of the spec, as numbers for the guard. */
export const TRAFFIC_RULES = {
  /**
   * "A high-traffic load test against the sandbox environment is announced to support at least two weeks in advance."
   */
  sandboxNoticeDays: 14,
  /** "Traffic above 200 requests per minute for more than 5 minutes is coordinated with support in advance." */
  coordinationAboveRpm: 200,
  coordinationAfterMinutes: 5,
} as const;

/** The spec's own words for each rule the guard enforces ("Limits"), quoted in its messages and in docs/guard.md. */
export const SPEC_WORDING = {
  notice:
    'A high-traffic load test against the sandbox environment is announced to support at least two weeks in advance.',
  coordination: 'Traffic above 200 requests per minute for more than 5 minutes is coordinated with support in advance.',
  maximums: 'Treat limits as maximums.',
  raised: 'They are per customer, tuned per customer, and can be raised on request to support.',
  spike: 'Brief bursts up to 300 requests per minute (5 minutes at most)',
  inFlight: 'Maximum concurrent in-flight requests: 128. Beyond this, requests queue and may receive 429',
} as const;

/**
 * The two causes of a 429 the spec names ("Rate limit exceeded, or concurrency beyond 128 in-flight
 * requests"), as the mock's error bodies say them (`{"error": code}`). The spec does not show the
 * service's error body, so a real 429 may name neither: it is then of no known kind.
 */
export const LIMIT_429_CODES = { rateLimit: 'rate_limited', inFlight: 'too_many_in_flight' } as const;

/** What an error code in a 429's body may look like to be recorded: a short token, so that it needs no escaping. */
export const ERROR_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Longest text the mock's obfuscation takes (characters): rules on CPU, not the model's limit. */
export const MAX_OBFUSCATION_CHARS = 100_000;
