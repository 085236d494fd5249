/** The comparison with a baseline run (`run --baseline`). */
import {
  type BaselineComparison,
  comparisonFindings,
  comparisonRows,
  comparisonRule,
  comparisonVerdict,
} from '../judge/index.js';
import type { ReportContent } from './content-types.js';

export function baselineSection(c: BaselineComparison): NonNullable<ReportContent['baseline']> {
  const [head, ...rows] = comparisonRows(c);
  const { regressions, inconclusive, improvements } = comparisonFindings(c);
  return {
    intro: `Compared with the baseline run in ${c.baselineDir} (${c.baseline.scenario}, started ${c.baseline.startedAt}), phase by phase, steady state, baseline → run.`,
    table: { head: head!, rows, numeric: [] },
    rule: comparisonRule(c),
    outcome: comparisonVerdict(c),
    lines: [
      ...regressions.map((r) => `Regression: ${r}`),
      ...inconclusive.map((r) => `Inconclusive: ${r}`),
      ...improvements.map((r) => `Better: ${r}`),
      ...c.notes.map((n) => `Note: ${n}`),
    ],
  };
}
