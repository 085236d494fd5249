/**
 * A comparison as data: its shape (run against baseline, phase by phase), the file a run folder keeps it in, and the
 * exit it gives.
 */
import type { Slice } from '../recorder/index.js';
import type { Summary } from './summary.js';

/** A judged run: its summary, and each phase's steady-state sample (the recorder's, in plan order). */
export interface ComparedRun {
  readonly summary: Summary;
  readonly steady: readonly Slice[];
}

export interface CompareOptions {
  /** How far above the baseline's interval the run's must lie to count (0.1: 10 %). */
  readonly tolerance: number;
  /** The one-sided p-value under which a rate's rise is more than chance (0.01 by default). */
  readonly alpha?: number;
}

export const DEFAULT_ALPHA = 0.01;

export interface RateFigure {
  readonly count: number;
  readonly of: number;
}

export interface SideFigures {
  readonly sent: number;
  /** Steady-state latency (answers other than 429), model ms; null without data. */
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly p99Ms: number | null;
  /** The p95's 95 % interval; a side is null when too few requests bound it. */
  readonly p95Interval: readonly [number | null, number | null] | null;
  /**
   * Over the requests sent; `errors`: every other failure (timeouts, resets, refused connections, malformed answers,
   * other statuses).
   */
  readonly rates: { readonly http429: RateFigure; readonly http504: RateFigure; readonly errors: RateFigure };
}

export type Figure = 'p95' | 'http429' | 'http504' | 'errors';

export interface Finding {
  readonly figure: Figure;
  /** `inconclusive`: a change for the worse that the tool's own lateness could have made. */
  readonly kind: 'regression' | 'improvement' | 'inconclusive';
  readonly text: string;
}

export interface PhaseComparison {
  readonly phase: string;
  readonly baseline: SideFigures;
  readonly run: SideFigures;
  readonly findings: readonly Finding[];
}

export interface Comparison {
  readonly tolerance: number;
  readonly alpha: number;
  readonly baseline: {
    readonly scenario: string;
    readonly startedAt: string;
    readonly planIdentity: string;
    readonly timeScale: number;
  };
  readonly run: {
    readonly scenario: string;
    readonly startedAt: string;
    readonly planIdentity: string;
    readonly timeScale: number;
  };
  readonly phases: readonly PhaseComparison[];
  readonly onlyInBaseline: readonly string[];
  readonly onlyInRun: readonly string[];
  /** Any clear regression. */
  readonly regression: boolean;
  /**
   * No clear regression, but a change for the worse the tool's own lateness could have made: neither clear nor ruled
   * out (absent in a comparison.json written before it was kept).
   */
  readonly inconclusive?: boolean;
  /** What the reader should know: a different plan, unmatched phases, a side too small to bound. */
  readonly notes: readonly string[];
}

/** The file in a run folder that keeps its comparison with --baseline. */
export const COMPARISON_FILE = 'comparison.json';

/** A comparison as a run folder keeps it (comparison.json): with the baseline folder it was made against. */
export interface BaselineComparison extends Comparison {
  readonly baselineDir: string;
}

/**
 * A run's exit with its comparison: a clear regression fails a run that passed or was inconclusive
 * (exit 1), an inconclusive comparison makes a passing run inconclusive (exit 5); a failed (1), broken (4) or
 * interrupted (130) run keeps its own exit.
 */
export function exitWithComparison(exitCode: number, comparison: Comparison | undefined): number {
  if (comparison?.regression === true && (exitCode === 0 || exitCode === 5)) return 1;
  return comparison?.inconclusive === true && exitCode === 0 ? 5 : exitCode;
}

/** comparison.json read back: the comparison, or a reason it cannot be used. */
export function parseComparison(text: string): BaselineComparison | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const v = value as Partial<BaselineComparison> | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.baselineDir !== 'string' ||
    typeof v.regression !== 'boolean' ||
    typeof v.tolerance !== 'number' ||
    !Array.isArray(v.phases) ||
    !Array.isArray(v.notes)
  ) {
    return 'expected {baselineDir, tolerance, regression, phases[], notes[], …} as loadproof run --baseline writes it';
  }
  return v as BaselineComparison;
}
