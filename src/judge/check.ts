/** A check of the verdict, its status, and the comparison a threshold states. */
import type { Threshold } from '../scenario/index.js';

export type CheckStatus = 'pass' | 'fail' | 'inconclusive';

export interface Check {
  /** Stable id: latency_p95_target, threshold, http_429_in_envelope. */
  readonly id: string;
  /** The phase the check is about, or null for the whole run. */
  readonly phase: string | null;
  /** A documented target's check: the load band whose arrivals it judges (a ramp has one per band). */
  readonly band?: string;
  /** What was checked, e.g. "p(95) < 2.5s (spec, sustained band, steady state)". */
  readonly what: string;
  readonly status: CheckStatus;
  /** The measured value (ms for percentiles, a fraction for rates, a count), or null without data. */
  readonly observed: number | null;
  /**
   * Confidence bounds of a percentile (ms), [lower, upper], each at 97.5 % (95 % together); a side is
   * null when the sample is too small for it. Null for a check that is not a percentile, or without data.
   */
  readonly interval: readonly [number | null, number | null] | null;
  /** One line saying why. */
  readonly reason: string;
}

export function compare(value: number, op: Threshold['op'], target: number): boolean {
  switch (op) {
    case '<':
      return value < target;
    case '<=':
      return value <= target;
    case '==':
      return value === target;
    case '>=':
      return value >= target;
    case '>':
      return value > target;
    default: {
      const unreachable: never = op;
      throw new Error(`unknown operator ${String(unreachable)}`);
    }
  }
}

/** A rate (rpm) to one decimal, as reasons print it. */
export const rpm = (value: number): string => String(Math.round(value * 10) / 10);
