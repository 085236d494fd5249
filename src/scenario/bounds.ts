/**
 * What a scenario may ask for. Each bound is what makes sense for a load test of this API, well
 * inside what the process can hold (memory for the arrivals, Node's timer range), and each refusal
 * names it. docs/scenarios.md ("Bounds") lists them.
 */
export const SCENARIO_BOUNDS = {
  /** Size of a scenario file (bytes), checked before it is parsed. */
  fileBytes: 1024 * 1024,
  /** Nodes that YAML aliases (*name) may expand to: the yaml package's guard against "billion laughs". */
  yamlAliasNodes: 100,
  /** Lists and mappings inside one another. */
  nestingLevels: 64,
  phases: 1000,
  /** A phase or a warm-up (ms): 7 days. */
  phaseMs: 7 * 24 * 3_600_000,
  /** Arrivals in a plan, from the phases' rates before any is generated: 10,000,000 × 8 bytes of offsets. */
  plannedRequests: 10_000_000,
  /** The client's deadline per request (ms): 100 ms to 10 minutes. */
  timeoutMs: { min: 100, max: 600_000 },
  /** How long a kept-alive connection may sit idle and still be used (wall ms): up to 10 minutes. */
  idleConnectionMs: { min: 1, max: 600_000 },
  /** Longest wait before a retry (ms): 1 hour. */
  maxDelayMs: 3_600_000,
  /** Timeline window (ms), and how many of them a plan may have. */
  windowMs: { min: 1000, max: 7 * 24 * 3_600_000 },
  windows: 10_000,
  /** Seeds are 32-bit. */
  seed: { min: 0, max: 2 ** 32 - 1 },
  /** limits.burstMinutes and limits.spikeMinutes: a day. */
  limitMinutes: 1440,
  /** maxInFlight, the client's and a raised limit. */
  maxInFlight: 10_000,
  /** Years of the notice's dates. */
  years: { min: 1970, max: 9999 },
} as const;

/** A count as people read it: 10080000 → "10,080,000"; an astronomical one in exponent form (1.67e+306). */
export function formatCount(n: number): string {
  return n < 1e15 ? Math.round(n).toLocaleString('en-US') : n.toExponential(2);
}
