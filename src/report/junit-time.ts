/**
 * junit.xml's times: CI shows them as how long a test took, so they are wall seconds of what each case covers. A
 * phase's checks cover its schedule, which runs at the time scale (model seconds ÷ k); the whole run covers what the
 * process spent, set-up included, as measured from startedAt to endedAt.
 */
import type { Summary } from '../judge/index.js';

export interface SuiteTime {
  /** Wall seconds, to the millisecond: JUnit's time is a decimal, never 1e-7. */
  readonly wallS: number;
  /** How the wall seconds were had, for the suite's timeUnit property. */
  readonly basis: string;
}

const toMs = (s: number): number => Math.round(s * 1000) / 1000;

/** A stretch of the schedule: its model seconds at the run's time scale. */
export function scheduleTime(summary: Summary, modelS: number): SuiteTime {
  return {
    wallS: toMs(modelS / summary.timeScale),
    basis: `${toMs(modelS)} model seconds at time scale ${summary.timeScale}`,
  };
}

/** The whole run: measured when it recorded its end, else its schedule's length at k. */
export function runTime(summary: Summary): SuiteTime {
  const schedule = scheduleTime(summary, summary.modelDurationS);
  const measuredMs = summary.endedAt === null ? NaN : Date.parse(summary.endedAt) - Date.parse(summary.startedAt);
  if (!Number.isFinite(measuredMs) || measuredMs < 0) return schedule;
  return {
    wallS: toMs(measuredMs / 1000),
    basis: `the run from startedAt to endedAt, set-up included; its schedule: ${schedule.basis}`,
  };
}

/** The property that says a suite's times are wall seconds, and how they were had. */
export const timeUnit = (time: SuiteTime): string => `wall seconds (this suite: ${time.basis})`;
