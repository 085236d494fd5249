/**
 * Runs grouped by scenario (a trend is per scenario) and ordered by their start, with each phase's figures: the
 * p95 the verdict judges (steady state, 429s answered at once left out, model ms) and its target, goodput, and the
 * 429 and error rates over the requests sent.
 */
import type { TrendRun } from './read-runs.js';
import type { TrendPhase, TrendSummary } from './summary-schema.js';

export interface PhaseFigures {
  readonly name: string;
  /** Steady-state p95 (model ms); null without data, or when it fell on an unanswered request (`unanswered`). */
  readonly p95Ms: number | null;
  readonly p95Unanswered: boolean;
  /** The phase's one documented target (model ms), or null (none, or a ramp across bands). */
  readonly targetMs: number | null;
  /** 2xx answers a model minute; null for a zero-length phase. */
  readonly goodputRpm: number | null;
  readonly sent: number;
  readonly http429: number;
  readonly http504: number;
  /** Every other failure (timeouts, resets, refused connections, malformed answers, other statuses), as compare. */
  readonly otherFailures: number;
}

export interface TrendPoint {
  readonly dir: string;
  /** The folder's real path, when read from disk: the baseline is the same run as a listed one only when it matches. */
  readonly realDir?: string;
  readonly summary: TrendSummary;
  readonly phases: readonly PhaseFigures[];
}

export interface ScenarioTrend {
  readonly scenario: string;
  /** In the order they started. */
  readonly runs: readonly TrendPoint[];
  /** The phase names across its runs, in the order first seen. */
  readonly phaseNames: readonly string[];
}

/** Goodput as summary.json v5 gives it; for an older summary, its 2xx answers ÷ its length in model minutes. */
function goodputOf(phase: TrendPhase): number | null {
  if (phase.goodputRpm !== undefined) return phase.goodputRpm;
  return phase.durationS <= 0 ? null : Math.round((phase.outcomes.ok / (phase.durationS / 60)) * 100) / 100;
}

export function phaseFigures(phase: TrendPhase): PhaseFigures {
  const p95 = phase.steadyLatencyMs.p95;
  return {
    name: phase.name,
    p95Ms: typeof p95 === 'number' ? p95 : null,
    p95Unanswered: p95 === 'unanswered',
    targetMs: phase.target?.p95Ms ?? null,
    goodputRpm: goodputOf(phase),
    sent: phase.sent,
    http429: phase.outcomes.http_429,
    http504: phase.outcomes.http_504,
    otherFailures: Object.values(phase.errors).reduce((a, b) => a + b, 0) + phase.outcomes.http_other,
  };
}

/** A rate over the requests sent, in percent; null when none was sent. */
export const percentOf = (count: number, sent: number): number | null => (sent === 0 ? null : (100 * count) / sent);

/** The error rate a trend shows: 504s and every other failure, over the requests sent (429s have their own). */
export const errorPercent = (p: PhaseFigures): number | null => percentOf(p.http504 + p.otherFailures, p.sent);

const byStart = (a: TrendRun, b: TrendRun): number =>
  Date.parse(a.summary.startedAt) - Date.parse(b.summary.startedAt) || a.dir.localeCompare(b.dir);

/** The runs by scenario (scenarios in the order of their first run), each scenario's runs by start. */
export function groupByScenario(runs: readonly TrendRun[]): ScenarioTrend[] {
  const groups = new Map<string, TrendRun[]>();
  for (const run of [...runs].sort(byStart)) {
    const group = groups.get(run.summary.scenario) ?? [];
    group.push(run);
    groups.set(run.summary.scenario, group);
  }
  return [...groups].map(([scenario, group]) => {
    const phaseNames = [...new Set(group.flatMap((r) => r.summary.phases.map((p) => p.name)))];
    return {
      scenario,
      phaseNames,
      runs: group.map((r) => ({ ...r, phases: r.summary.phases.map(phaseFigures) })),
    };
  });
}
