/**
 * A histogram's statistics as summary.json shows them: in ms, 3 decimals, null without data, "unanswered" where they
 * fall on a request dropped or left unanswered.
 */
import { isUnanswered } from '../core/index.js';
import type { HistogramSummary } from '../recorder/index.js';

/** A statistic in ms: null without data, "unanswered" where it falls on a request dropped or left unanswered. */
type Stat = number | null | 'unanswered';
type Stats = { readonly [K in keyof HistogramSummary]: K extends 'count' ? number : Stat };

export const stats = (h: { summary(): HistogramSummary }): Stats => {
  const s = h.summary();
  const clean = (v: number): Stat =>
    !Number.isFinite(v) ? null : isUnanswered(v) ? 'unanswered' : Math.round(v * 1000) / 1000;
  // A mean over unanswered requests has no meaning.
  return {
    count: s.count,
    p50: clean(s.p50),
    p90: clean(s.p90),
    p95: clean(s.p95),
    p99: clean(s.p99),
    max: clean(s.max),
    mean: isUnanswered(s.max) ? null : clean(s.mean),
  };
};
