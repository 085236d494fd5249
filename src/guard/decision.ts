/** The guard's decision: whether a run may send anything, one check per rule, and the traffic it measured. */
import type { EffectiveLimits, Plan } from '../plan/index.js';
import type { Stretch } from './traffic.js';

export type GuardRule = 'target' | 'time-scale' | 'notice' | 'notice-window' | 'coordination' | 'envelope';

export interface GuardCheck {
  readonly rule: GuardRule;
  readonly status: 'ok' | 'refused' | 'not-applicable';
  readonly message: string;
}

export interface GuardDecision {
  readonly allowed: boolean;
  readonly environment: Plan['scenario']['target']['environment'];
  /** Whether the spec's traffic rules applied (sandbox, production). */
  readonly real: boolean;
  readonly startAt: string;
  /** Last arrival slot plus the worst-case wait for its answer (retries included). */
  readonly plannedEndAt: string;
  /** The planned arrivals in sliding 60 s windows, each counted worstCaseFactor times (see traffic.ts). */
  readonly traffic: {
    /**
     * Each arrival counted this many times: on429 retry's maxAttempts (retries and the resend after a token renewal),
     * else 1.
     */
    readonly worstCaseFactor: number;
    /** The most requests in any 60 s window (requests per minute). */
    readonly peakRpm: number;
    /** Where the first window holding peakRpm requests starts (model ms from the run start); null without arrivals. */
    readonly peakMinuteStartMs: number | null;
    /**
     * The longest stretch whose trailing minute holds more than 200 requests (dips under a minute bridged), or null.
     */
    readonly longestAboveCoordinationRpm: StretchSummary | null;
    /** The longest stretch at the spike rate: first to last request in windows holding ≥ spikeRpm requests, or null. */
    readonly longestAtSpikeRpm: StretchSummary | null;
    readonly maxInFlight: number;
    /**
     * OAuth token calls at the start: one per process sending the plan (n for `--shard i/n`), each renewed when its
     * token expires. Token calls are no identification requests: counted here, not in the minutes above.
     */
    readonly tokenCalls: number;
  };
  readonly limits: EffectiveLimits;
  readonly checks: readonly GuardCheck[];
  /** `rule: message` of every refused check. */
  readonly reasons: readonly string[];
}

/** A stretch of the plan: model ms from the run start, exact to the microsecond. */
export type StretchSummary = Stretch;

export interface GuardContext {
  /** When the run starts (epoch ms): now for `run`, `--at` for `plan`. */
  readonly startAtMs: number;
  /** Tests only: a real environment at a loopback URL is judged as real instead of refused. */
  readonly loopbackAsReal?: boolean;
  /**
   * The endpoint the plan's requests go to (default identification). The spec gives obfuscation no numbers
   * ("substantially higher" limits), so the identification envelope is not its: only the traffic rules apply.
   */
  readonly endpoint?: 'identification' | 'obfuscation';
  /** How many processes send the plan (`run --shard i/n`: n), each with its own token call; 1 when absent. */
  readonly processes?: number;
}
