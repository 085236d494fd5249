/**
 * What report.md and report.html say, once, for both to render: a run's evidence written for a support
 * ticket — what was run, where, when and by which version; a row per phase (and per load band of a
 * ramp) with its p95's 95 % interval and target; when 429s began, of which kind, at what offered rate;
 * a plain account of what was observed against the documented limits; the guard's checks; the charts.
 * A pure function of summary.json, run.json and the scenario copy, so `loadproof report` rebuilds it
 * from the run folder. It states only what the run measured.
 */
import { baselineSection } from './baseline-section.js';
import { briefContent } from './brief-content.js';
import { capacitySections } from './capacity-section.js';
import { runCharts } from './charts.js';
import type { ReportContent, ReportInput } from './content-types.js';
import { deidSection } from './deid-section.js';
import { errorsSection } from './errors-section.js';
import { evidence } from './evidence-section.js';
import { headline, kpis, shortReasons } from './header-section.js';
import { identity } from './identity-section.js';
import { phaseRows } from './phase-table.js';
import { phiSection } from './phi-section.js';
import { inTargetWords } from './target-text.js';

export function reportContent(input: ReportInput): ReportContent {
  const { summary } = input;
  const found = evidence(summary, summary.target.kind === 'real');
  return {
    title: `${summary.scenario}${!summary.shard ? '' : ` (shard ${summary.shard.index}/${summary.shard.count})`}: ${summary.verdict.status.toUpperCase()}`,
    headline: headline(summary),
    kpis: kpis(summary),
    identity: { head: ['', ''], rows: identity(input), numeric: [] },
    phasesNote:
      "Rates in requests a minute; goodput: the phase's requests answered 2xx, a minute of model time. Latency from the intended send time to the answer, 429s answered at once left out, steady state (after each phase's warm-up), model time; p95 with its 95 % interval (one side only when too few requests bound the other).",
    phases: {
      head: [
        'Phase',
        'Offered',
        'Achieved',
        'Goodput (2xx/min)',
        'Requests',
        '2xx',
        '429',
        '504',
        'Errors',
        'p50',
        'p95 (95 % interval)',
        'p99',
        'Target p95',
        'Verdict',
      ],
      rows: phaseRows(summary),
      numeric: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    },
    shortReasons: shortReasons(summary),
    reasons: summary.verdict.reasons.map((r) => inTargetWords(summary, r)),
    evidence: found.paragraphs,
    lateness: found.lateness,
    ...errorsSection(summary),
    guard: {
      head: ['Rule', 'Status', 'What it found'],
      rows: summary.guard.checks.map((c) => [c.rule, c.status, c.message]),
      numeric: [],
    },
    ...(input.comparison === undefined ? {} : { baseline: baselineSection(input.comparison) }),
    ...capacitySections(input),
    ...(summary.deid === null ? {} : { deid: deidSection(summary.deid), phi: phiSection(summary)! }),
    brief: briefContent(input, { manifestSha256: null, clientId: input.briefClientId }),
    charts: runCharts(summary),
    pngCharts: input.pngCharts !== false,
    files:
      'This report is built from the run folder alone (`loadproof report <folder>` rebuilds it). `summary.json` holds every figure here; `events.ndjson` one line per planned request (in a deid run, `documents.ndjson` one per planned document); `junit.xml` the checks for CI. `manifest.json` lists the SHA-256 of every file, this one included: `loadproof verify <folder>` says whether any was changed.',
  };
}
