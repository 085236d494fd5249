/**
 * One phase of a run against its baseline: each side's figures, the p95's clear change, and what the reader should know
 * of it.
 */
import { TimeScale } from '../core/index.js';
import type { Slice } from '../recorder/index.js';
import type { ComparedRun, Finding, SideFigures } from './comparison.js';
import { generatorHealth, mockBehindText, worstLatenessMs } from './generator-budget.js';
import { slowestAnsweredMs } from './percentile-check.js';
import { quantileInterval } from './quantile-interval.js';
import type { Summary } from './summary.js';

type Phase = Summary['phases'][number];

/** `capMs`: sectioning is done on min(latency, cap), as the verdict does (quantileInterval). */
function figures(phase: Phase, steady: Slice, capMs: number): SideFigures {
  const interval = quantileInterval({ all: steady.latencyExcl429, blocks: steady.latencyExcl429Blocks }, 0.95, capMs);
  const latency = phase.steadyLatencyMs;
  const shown = (v: number | null | 'unanswered'): number | null => (typeof v === 'number' ? v : null);
  const failed = Object.values(phase.errors).reduce((a, b) => a + b, 0) + phase.outcomes.http_other;
  return {
    sent: phase.sent,
    p50Ms: shown(latency.p50),
    p95Ms: shown(latency.p95),
    p99Ms: shown(latency.p99),
    p95Interval: interval === undefined ? null : [interval.lowerMs, interval.upperMs],
    rates: {
      http429: { count: phase.outcomes.http_429, of: phase.sent },
      http504: { count: phase.outcomes.http_504, of: phase.sent },
      errors: { count: failed, of: phase.sent },
    },
  };
}

const ms = (v: number | null): string =>
  v === null ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)}s` : `${Math.round(v)}ms`;
const intervalText = (i: SideFigures['p95Interval']): string => (i === null ? 'no data' : `${ms(i[0])}–${ms(i[1])}`);

/**
 * Each side's generator lateness to take off its own p95 interval (model ms as its latency counts it; 0 when on time).
 */
interface Lateness {
  readonly base: number;
  readonly run: number;
}

const ON_TIME: Lateness = { base: 0, run: 0 };

/**
 * A clear change of p95. A side's lateness comes off its own interval only where it could have made the change:
 * off the run's for a regression, off the baseline's for an improvement.
 */
export function p95Findings(
  base: SideFigures,
  run: SideFigures,
  tolerance: number,
  late: Lateness = ON_TIME,
): Finding[] {
  const [baseLow, baseHigh] = base.p95Interval ?? [null, null];
  const [runLow, runHigh] = run.p95Interval ?? [null, null];
  const what = `p95 ${ms(run.p95Ms)} (interval ${intervalText(run.p95Interval)}) against ${ms(base.p95Ms)} (${intervalText(base.p95Interval)})`;
  const pct = Math.round(tolerance * 100);
  const off = (side: string, lateMs: number): string =>
    lateMs > 0 ? `, even with ${side}'s worst generator lateness (${ms(lateMs)}) taken off` : '';
  if (runLow !== null && baseHigh !== null && runLow - late.run > baseHigh * (1 + tolerance)) {
    return [
      {
        figure: 'p95',
        kind: 'regression',
        text: `${what}: the new interval lies above the baseline's by more than ${pct} %${off('the run', late.run)}`,
      },
    ];
  }
  if (runHigh !== null && baseLow !== null && runHigh * (1 + tolerance) < baseLow - late.base) {
    return [
      {
        figure: 'p95',
        kind: 'improvement',
        text: `${what}: the new interval lies below the baseline's by more than ${pct} %${off('the baseline', late.base)}`,
      },
    ];
  }
  return [];
}

/** How the verdict's note on a mock that fell behind begins. */
const MOCK_BEHIND = mockBehindText({ maxWallMs: 0, modelMs: 0 }).split(' by ')[0]!.replace(/^t/, 'T');

/**
 * Whose lateness the run's verdict noted for the phase: its generator's, its embedded mock's (over a budget:
 * src/judge/verdict.ts), both or none.
 */
function lateOnes(summary: Summary, phase: string): ('generator' | 'mock')[] {
  const notes = summary.verdict.notes;
  return [
    ...(notes.some((n) => n.startsWith(`phase ${phase}: the generator was late (`)) ? ['generator' as const] : []),
    ...(notes.some((n) => n.startsWith(MOCK_BEHIND)) ? ['mock' as const] : []),
  ];
}

/**
 * The generator's worst lateness in a phase's steady state as its latency counts it (model ms), as the verdict
 * takes it off (its send-lag max plus the event loop's max delay, once at time scale k, plus what the embedded mock's
 * stall could add); 0 when its verdict did not note it late for the phase.
 */
function latenessOf(summary: Summary, phase: string, steady: Slice): number {
  if (lateOnes(summary, phase).length === 0) return 0;
  const { eventLoopDelayP99Ms: p99, eventLoopDelayMaxMs: max, mockLag } = summary.generator;
  const scale = TimeScale.of(summary.timeScale, 'summary.json timeScale');
  return worstLatenessMs(steady, generatorHealth(scale, p99, max, mockLag));
}

/**
 * A regression the run's own lateness could have made: it is no clear change, nor ruled out. It reads inconclusive
 * (compare exits 5), never "no clear change": the lateness bound is loose, so a real regression can hide under it.
 */
function maskedRegression(measured: Finding, summary: Summary, phase: string, lateMs: number, pct: number): Finding {
  const whose = lateOnes(summary, phase).map((one) =>
    one === 'mock'
      ? "the embedded mock fell behind (the run's verdict says so)"
      : "the run's generator was late (its verdict says so)",
  );
  return {
    figure: measured.figure,
    kind: 'inconclusive',
    text: `${measured.text}, but not with the tool's worst lateness (${ms(lateMs)} of model time) taken off the run's interval: it no longer lies above by more than ${pct} %: could be the tool's: ${whose.join(' and ')}`,
  };
}

/** A phase compared: both sides' figures and the p95's findings (the rates' are added over every phase at once). */
export interface ComparedPhase {
  readonly name: string;
  readonly base: SideFigures;
  readonly run: SideFigures;
  readonly findings: Finding[];
}

/** Phase `i` of the run against phase `j` of the baseline (the same name); its notes go to `notes`. */
export function comparePhase(
  baseline: ComparedRun,
  run: ComparedRun,
  [i, j]: readonly [number, number],
  tolerance: number,
  notes: string[],
): ComparedPhase {
  const phase = run.summary.phases[i]!;
  const baseSteady = baseline.steady[j]!;
  const runSteady = run.steady[i]!;
  // One cap for both sides: above the slowest answer of either, so that only unanswered requests are capped.
  const capMs =
    2 * Math.max(slowestAnsweredMs(baseSteady.latencyExcl429), slowestAnsweredMs(runSteady.latencyExcl429), 1);
  const base = figures(baseline.summary.phases[j]!, baseSteady, capMs);
  const now = figures(phase, runSteady, capMs);
  const unbounded = (f: SideFigures): boolean => f.p95Interval === null || f.p95Interval.includes(null);
  if (unbounded(base) || unbounded(now)) {
    const side = unbounded(base) && unbounded(now) ? 'either run' : unbounded(base) ? 'the baseline' : 'the run';
    notes.push(
      `${phase.name}: too few steady-state answers in ${side} to bound a p95 on both sides (${base.p95Interval === null || now.p95Interval === null ? 'none at all' : 'too few'}); its p95 can show no clear change`,
    );
  }
  // A late generator inflates its own run's latency only: a change it could have made (a late run's regression,
  // a late baseline's improvement) stands when it survives taking that run's worst lateness off, as the verdict's
  // percentile check does. A change the lateness works against stands as measured (its rates stand too).
  const late: Lateness = {
    base: latenessOf(baseline.summary, phase.name, baseSteady),
    run: latenessOf(run.summary, phase.name, runSteady),
  };
  const measured = p95Findings(base, now, tolerance);
  const p95 = p95Findings(base, now, tolerance, late);
  const pct = Math.round(tolerance * 100);
  if (measured.length > 0 && p95.length === 0) {
    if (measured[0]!.kind === 'regression')
      return {
        name: phase.name,
        base,
        run: now,
        findings: [maskedRegression(measured[0]!, run.summary, phase.name, late.run, pct)],
      };
    notes.push(
      `${phase.name}: the generator of the baseline was late (its verdict says so): a change of its p95 (improvement) is no clear change: with its worst lateness (${ms(late.base)}) taken off the baseline's interval, it no longer lies below the other by more than ${pct} %`,
    );
  }
  return { name: phase.name, base, run: now, findings: p95 };
}
