/** What the verdict judges: per phase, its slices, load bands, thresholds and envelope; the generator's lateness. */
import type { Slice } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';
import type { LatencyBand } from '../spec/index.js';
import type { EnvelopePhase } from './envelope.js';
import type { PhiSlice } from './phi-slice.js';
import type { TimeOrderedSample } from './quantile-interval.js';

/** The steady requests of a phase that fall in one load band, by the rate at their intended time. */
export interface BandInput {
  /** The spec's band, or undefined above 300 rpm (no documented target). */
  readonly band: LatencyBand | undefined;
  /** Offered rate at the band's start and end in the phase (rpm). */
  readonly fromRpm: number;
  readonly toRpm: number;
  /**
   * Requests the plan put in the band after the warm-up: a band that planned none (inside the warm-up) is not judged.
   */
  readonly steadyPlanned: number;
  readonly steady: Slice;
}

export interface PhaseInput {
  readonly name: string;
  /** The phase's load bands in time order: one for a constant rate, up to four for a ramp. */
  readonly bands: readonly BandInput[];
  /** Requests the plan put in the phase: a phase that planned none has no error rate to judge. */
  readonly planned: number;
  /**
   * The client's cap on requests in flight, and what a service meeting the phase's latency target would
   * hold in flight at its peak rate (Little's law: peak rate × target). Below that, drops at the cap can be
   * the client's doing, not the service's.
   */
  readonly inFlight?: {
    readonly maxInFlight: number;
    readonly neededAtTarget: number;
    /** The phase's latency target (model ms), for the generator's budget. */ readonly targetMs?: number;
    /**
     * The phase before: its name, its peak rate (rpm) and its answered requests' mean time in their slot beyond their
     * latency (model ms): its requests still hold slots as this phase begins (src/judge/tool-held-slots.ts).
     */
    readonly before?: { readonly name: string; readonly peakRpm: number; readonly heldBeyondLatencyMs: number };
  };
  /** Requests of the phase after its warm-up. */
  readonly steady: Slice;
  /** Every request of the phase. */
  readonly all: Slice;
  /** The phase's 429s judged against the rate-limit envelope (envelopeFindings). */
  readonly envelope: EnvelopePhase;
  readonly thresholds: readonly Threshold[];
  /** The error check (`thresholds.errors`: rate(errors) < 1 % by default), on the whole phase; null for none. */
  readonly errorCheck: Threshold | null;
  /** mode deid: the obfuscation calls and the documents of the phase's steady state, for thresholds that name them. */
  readonly stages?: { readonly obfuscation: StageInput; readonly document: StageInput };
  /** mode deid: the known PHI of all the phase's documents (a leak in the warm-up is a leak all the same). */
  readonly phi?: PhiSlice;
}

/** A stage of the deid chain, as its thresholds judge it. */
export interface StageInput {
  /** Latency of its items other than 429s (an obfuscation call; a document end to end), in time blocks. */
  readonly latency: TimeOrderedSample;
  /** Its items (calls; documents that were sent), and how many were 429, 504, 5xx, or failed. */
  readonly counts: {
    readonly total: number;
    readonly http_429: number;
    readonly http_504: number;
    readonly http_5xx: number;
    readonly errors: number;
  };
}

/** How late the whole generator was, in model ms (wall ms × k); send lag is judged per phase, from its slice. */
export interface GeneratorHealth {
  /** Event-loop delay p99 in model ms (wall × k), when monitored: it delays reading answers as much as sending. */
  readonly eventLoopDelayP99Ms?: number;
  /** Event-loop delay max in model ms (wall × k), when monitored: the most it delayed any one answer. */
  readonly eventLoopDelayMaxMs?: number;
  /**
   * How much of the generator's lateness (model ms: send lag, event-loop delay) shows in the latency judged:
   * 1 (the default), or 1 ÷ k at time scale k, where latency counts the wall overheads once
   * (src/judge/accounting.ts): a send 4 ms late on the wall adds 4 ms, not 4 × k.
   */
  readonly latenessInLatency?: number;
  /**
   * The embedded mock's own lag (src/mock/loop-lag.ts), when it was the target: the most model time its delay could
   * have added to a request's latency (counted in full: a late arrival's queue grows in model time), and its wall max;
   * `p99ModelMs`, the same from its delay's p99: whether it fell behind often enough to move a percentile.
   */
  /**
   * The answered requests' mean time in their client slot beyond their judged latency, over the whole run (model ms):
   * for a phase that answered none (src/judge/tool-held-slots.ts).
   */
  readonly slotHeldBeyondLatencyMs?: number;
  readonly mock?: {
    readonly modelMs: number;
    readonly maxWallMs: number;
    readonly p99ModelMs?: number;
    /** The model's lag window (model ms): every answer leaves that long after its time, holding its client slot. */
    readonly windowModelMs?: number;
  };
}

export interface VerdictInput {
  readonly phases: readonly PhaseInput[];
  readonly documentedTargets: boolean;
  readonly generator: GeneratorHealth;
}
