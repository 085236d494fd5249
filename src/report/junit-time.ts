/**
 * junit.xml's times: CI shows them as how long a test took, and GitLab and Jenkins add them up (a suite's cases, a
 * file's suites), so each wall second of the run is counted once. The whole file covers what the process spent,
 * set-up included, as measured from startedAt to endedAt. A phase's suite covers its schedule, which runs at the time
 * scale (model seconds ÷ k), cut off where an interrupted or partial run stopped; the whole run's suite holds the
 * rest (set-up, drain). Times are reckoned in whole milliseconds from boundaries, so the parts add up to the whole.
 */
import type { Summary } from '../judge/index.js';

export interface SuiteTime {
  /** Wall seconds, to the millisecond: JUnit's time is a decimal, never 1e-7. */
  readonly wallS: number;
  /** How the wall seconds were had, for the suite's timeUnit property. */
  readonly basis: string;
}

type Phase = Summary['phases'][number];

const toMs = (s: number): number => Math.round(s * 1000) / 1000;

/** The whole run in wall ms: measured when it recorded its end, else its schedule's length at k. */
function runWallMs(summary: Summary): number | null {
  const measuredMs = summary.endedAt === null ? NaN : Date.parse(summary.endedAt) - Date.parse(summary.startedAt);
  return Number.isFinite(measuredMs) && measuredMs >= 0 ? Math.round(measuredMs) : null;
}

const scheduleWallMs = (summary: Summary, modelS: number): number => Math.round((modelS / summary.timeScale) * 1000);

/** The whole run: measured when it recorded its end, else its schedule's length at k. */
export function runTime(summary: Summary): SuiteTime {
  const basis = `${toMs(summary.modelDurationS)} model seconds at time scale ${summary.timeScale}`;
  const measuredMs = runWallMs(summary);
  if (measuredMs === null) return { wallS: scheduleWallMs(summary, summary.modelDurationS) / 1000, basis };
  return {
    wallS: measuredMs / 1000,
    basis: `the run from startedAt to endedAt, set-up included; its schedule: ${basis}`,
  };
}

/**
 * Where the schedule ends in wall ms: where the run stopped when it was interrupted or is partial (its last event),
 * and never past the whole run's time, so the phases' suites never add up to more than the file's.
 */
function scheduleEndWallMs(summary: Summary): number {
  const stoppedMs =
    summary.interrupted || summary.partial ? scheduleWallMs(summary, summary.modelDurationS) : Number.POSITIVE_INFINITY;
  return Math.min(stoppedMs, Math.round(runTime(summary).wallS * 1000));
}

/** A phase's schedule at the run's time scale, cut off where the run stopped. */
export function phaseTime(summary: Summary, phase: Phase): SuiteTime {
  const endMs = scheduleEndWallMs(summary);
  const from = Math.min(scheduleWallMs(summary, phase.startS), endMs);
  const to = Math.min(scheduleWallMs(summary, phase.startS + phase.durationS), endMs);
  const planned = `${toMs(phase.durationS)} model seconds at time scale ${summary.timeScale}`;
  const whole =
    to - from === scheduleWallMs(summary, phase.startS + phase.durationS) - scheduleWallMs(summary, phase.startS);
  return {
    wallS: (to - from) / 1000,
    basis: whole ? planned : `${toMs(((to - from) / 1000) * summary.timeScale)} of its ${planned}: the run stopped`,
  };
}

/** The whole run's suite: what the phases' suites leave of the run (set-up, token, drain). */
export function restTime(summary: Summary): SuiteTime {
  const totalMs = Math.round(runTime(summary).wallS * 1000);
  const phasesMs = summary.phases.reduce((s, p) => s + Math.round(phaseTime(summary, p).wallS * 1000), 0);
  return {
    wallS: Math.max(0, totalMs - phasesMs) / 1000,
    basis: `the run (${runTime(summary).basis}) less its phases' suites: set-up, token and drain`,
  };
}

/** The baseline's suite: a comparison made after the run; the phases it compares are timed in their own suites. */
export const comparisonTime: SuiteTime = {
  wallS: 0,
  basis: '0: a comparison after the run; the phases it compares are timed in their own suites',
};

/**
 * A suite's time shared among its cases, in whole ms that add up to it: the checks judge the same stretch together,
 * so an equal share keeps CI's sums true and shows no check as the slow one.
 */
export function caseTimes(suite: SuiteTime, cases: number): number[] {
  const totalMs = Math.round(suite.wallS * 1000);
  return Array.from(
    { length: cases },
    (_, i) => (Math.round((totalMs * (i + 1)) / cases) - Math.round((totalMs * i) / cases)) / 1000,
  );
}

/** The property that says a suite's times are wall seconds, and how they were had. */
export const timeUnit = (time: SuiteTime): string =>
  `wall seconds (this suite: ${time.basis}; its cases share it equally)`;
