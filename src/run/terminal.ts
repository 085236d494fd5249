/** The end-of-run table on the terminal, like k6's summary: one row per phase, then the verdict. */
import { basename, join } from 'node:path';

import { formatMs, formatTable } from '../core/index.js';
import type { Summary } from '../judge/index.js';
import { capacityHeadline, foldLateNotes, inTargetWords, plateauSentence, targetText } from '../report/index.js';
import { phiLines } from './phi-lines.js';
import type { RunOutcome } from './run-options.js';
import { topErrorLines } from './top-errors-lines.js';

const sec = (ms: number | null | 'unanswered'): string => (ms === null ? '—' : ms === 'unanswered' ? ms : formatMs(ms));

const errorCount = (e: Record<string, number>): number => Object.values(e).reduce((a, b) => a + b, 0);

/**
 * `exitCode`: the process's, when a file written after summary.json (the manifest) failed and made it 4.
 * `summaryPath`: null when summary.json could not be written: then no path is printed, only that it is missing.
 * `verbose`: each late phase's note under the one line that folds them.
 */
export function formatSummary(
  summary: Summary,
  summaryPath: string | null,
  exitCode: number = summary.exitCode,
  verbose = false,
): string {
  const rows = [PHASE_HEADER, ...summary.phases.flatMap(phaseRows), overallRow(summary)];
  return [
    '',
    headLine(summary),
    'rates in requests/min (goodput: answered 2xx a minute); latency from the intended send time, 429s answered at once left out, steady state (after warm-up), model time',
    '',
    ...formatTable(rows, (col) => col > 0).map((l) => `  ${l}`),
    '',
    ...capacityLines(summary),
    ...topErrorLines(summary),
    ...deidLines(summary),
    ...phiLines(summary),
    ...runNotes(summary),
    ...verdictLines(summary, summaryPath, exitCode, verbose),
    '',
  ].join('\n');
}

const PHASE_HEADER = [
  'phase',
  'offered',
  'achieved',
  'goodput',
  'sent',
  'dropped',
  'unsent',
  '2xx',
  '429',
  '504',
  'errors',
  'p50',
  'p95',
  'p99',
  'target p95',
  'verdict',
];

/** A phase's row, then, for a ramp across load bands (judged per band, by the rate at each arrival), a row per band. */
function phaseRows(p: Summary['phases'][number]): string[][] {
  const row = [
    p.name,
    `${Math.round(p.offeredRpm * 10) / 10}`,
    `${p.achievedRpm.toFixed(1)}`,
    p.goodputRpm === null ? '—' : p.goodputRpm.toFixed(1),
    `${p.sent}`,
    `${p.dropped}`,
    `${p.unsent}`,
    `${p.outcomes.ok}`,
    `${p.outcomes.http_429}`,
    `${p.outcomes.http_504}`,
    `${errorCount(p.errors) + p.outcomes.http_other}`,
    sec(p.steadyLatencyMs.p50),
    sec(p.steadyLatencyMs.p95),
    sec(p.steadyLatencyMs.p99),
    p.target === null ? (p.bands.length > 1 ? '(by band)' : '(none)') : `< ${sec(p.target.p95Ms)}`,
    p.verdict,
  ];
  if (p.bands.length <= 1) return [row];
  const bandRows = p.bands.map((b) => [
    `  ${b.fromRpm}→${b.toRpm} rpm`,
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    sec(b.steadyLatencyMs.p50),
    sec(b.steadyLatencyMs.p95),
    sec(b.steadyLatencyMs.p99),
    b.p95Ms === null ? '(none)' : `< ${sec(b.p95Ms)}`,
    '',
  ]);
  return [row, ...bandRows];
}

function overallRow(summary: Summary): string[] {
  const o = summary.overall;
  return [
    'overall',
    '',
    '',
    o.goodputRpm === null ? '' : o.goodputRpm.toFixed(1),
    `${o.sent}`,
    `${o.dropped}`,
    `${o.unsent}`,
    `${o.outcomes.ok}`,
    `${o.outcomes.http_429}`,
    `${o.outcomes.http_504}`,
    `${errorCount(o.errors) + o.outcomes.http_other}`,
    // The same latency as the phases' rows: the header's definition, every phase's steady state together.
    sec(o.steadyLatencyMs.p50),
    sec(o.steadyLatencyMs.p95),
    sec(o.steadyLatencyMs.p99),
    '',
    '',
  ];
}

function headLine(summary: Summary): string {
  const ending =
    summary.stopped === null
      ? ''
      : summary.stopped.by === 'signal'
        ? ' — INTERRUPTED'
        : ` — STOPPED (${summary.stopped.code})`;
  return `${summary.scenario}: ${targetText(summary)}, time scale ${summary.timeScale}, ${sec(summary.modelDurationS * 1000)} of model time${ending}`;
}

/** The generator's lag, then what to know before reading the verdict: unrecorded requests, a shard, a merge. */
function runNotes(summary: Summary): string[] {
  const lag = summary.generator.sendLagWallMs;
  const lines = [
    `generator: send lag p99 ${lag.p99 === null ? '—' : `${lag.p99.toFixed(2)} ms`}, max ${lag.max === null ? '—' : `${lag.max.toFixed(1)} ms`} (wall); token calls ${summary.token.calls ?? 'unknown'}`,
  ];
  if (summary.counts.unrecorded > 0)
    lines.push(
      `${summary.counts.unrecorded} of ${summary.counts.planned} planned requests have no line in events.ndjson: the run ended without recording them`,
    );
  if (summary.shard)
    lines.push(
      `shard ${summary.shard.index}/${summary.shard.count}: its rates and verdict are of this shard's share only (latency against the whole plan's bands; its 429s counted, not judged); the test's verdict is loadproof merge's, over every shard`,
    );
  if (summary.mergedFrom)
    lines.push(
      `merged from ${summary.mergedFrom.length} shard${summary.mergedFrom.length === 1 ? '' : 's'}: judged again over all their events`,
    );
  return lines;
}

/** A stepping run's answer, as report.md's Capacity section words it: the highest rate served, the plateau. */
function capacityLines(summary: Summary): string[] {
  const headline = capacityHeadline(summary);
  if (headline === null) return [];
  const plateau = plateauSentence(summary);
  return [`capacity: ${headline}`, ...(plateau === null ? [] : [`  ${plateau}`]), ''];
}

/** The verdict, its reasons and notes: the late phases' notes as one line, each phase's with --verbose. */
function verdictLines(summary: Summary, summaryPath: string | null, exitCode: number, verbose: boolean): string[] {
  const notes = foldLateNotes(summary.verdict.notes.map((n) => inTargetWords(summary, n)));
  const late = notes.lateness;
  return [
    `verdict: ${summary.verdict.status.toUpperCase()}${summary.stopped === null ? '' : ' (partial)'} — exit ${exitCode}`,
    ...summary.verdict.reasons.map((r) => `  - ${inTargetWords(summary, r)}`),
    ...(late === null
      ? []
      : [
          `  note: ${late.summary}${verbose ? '' : ' Each phase: report.md, or run --verbose.'}`,
          ...(verbose ? late.lines.map((l) => `    ${l}`) : []),
        ]),
    ...notes.others.map((n) => `  note: ${n}`),
    summaryPath === null
      ? 'summary: NOT WRITTEN (summary.json could not be written: see below); the table above is the judgement'
      : `summary: ${summaryPath}`,
  ];
}

/** mode deid: the documents through the chain, per phase (identification's figures are the table above). */
function deidLines(summary: Summary): string[] {
  const d = summary.deid;
  if (d === null) return [];
  const row = (name: string, rate: string, x: (typeof d.phases)[number] | typeof d.overall): string[] => [
    name,
    rate,
    `${x.documents}`,
    `${x.ok}`,
    `${x.failed.identification}/${x.failed.obfuscation}`,
    `${x.dropped}`,
    `${x.unsent}`,
    sec(x.identification.latencyMs.p50),
    sec(x.identification.latencyMs.p95),
    sec(x.identification.latencyMs.p99),
    sec(x.documentLatencyMs.p50),
    sec(x.documentLatencyMs.p95),
    sec(x.documentLatencyMs.p99),
    `${x.obfuscation.calls}`,
    sec(x.obfuscation.latencyMs.p95),
    `${x.obfuscation.outcomes.http_429 ?? 0}`,
    `${x.truncated}`,
  ];
  const rows = [
    [
      'phase',
      'docs/min',
      'documents',
      'ok',
      'failed id/obf',
      'dropped',
      'unsent',
      'id p50',
      'id p95',
      'id p99',
      'e2e p50',
      'e2e p95',
      'e2e p99',
      'obfuscations',
      'obf p95',
      'obf 429',
      'cut at cap',
    ],
    ...d.phases.map((p) => row(p.name, p.documentRpm === null ? '' : `${p.documentRpm}`, p)),
    row('overall', '', d.overall),
  ];
  const lines = [
    "de-identification chain: each document split, every piece identified, then obfuscated; the identification stage (id) to its last piece's answer and end to end (e2e) to the obfuscation's, both from its intended time, model time",
    '',
    ...formatTable(rows, (col) => col > 0).map((l) => `  ${l}`),
    '',
    ...capacityLines(summary),
  ];
  if (d.overall.truncated > 0)
    lines.push(
      `${d.overall.truncated} document(s) had a piece whose entities were cut at the output cap: PHI may remain in them (a larger payload.split.margin sends smaller pieces)`,
      '',
    );
  return lines;
}

/** The line that names a run folder's evidence: its manifest's SHA-256, what a ticket quotes, and how to check it. */
export function formatManifestLine(reportDir: string, manifestSha256: string | null): string {
  return manifestSha256 === null
    ? ''
    : `evidence: ${join(reportDir, 'manifest.json')} sha256:${manifestSha256} (check: loadproof verify ${reportDir})\n`;
}

/** Lines for stderr about what made the run fail apart from its verdict: a stop with a failure, a file not written. */
export function describeEnding(outcome: RunOutcome): string[] {
  const lines: string[] = [];
  if (outcome.failure !== undefined) {
    lines.push(`loadproof: ${outcome.failure.code}: ${outcome.failure.message}`);
    const sent = outcome.summary.counts.sent;
    const eventsLost = outcome.writeFailures.some((f) => basename(f.file) === 'events.ndjson');
    lines.push(
      `  ${sent === 0 ? 'nothing was sent' : `${sent} requests were sent before the run stopped`}; every planned request is accounted for in ${eventsLost ? 'the table above (events.ndjson was not written whole)' : outcome.reportDir}`,
    );
  }
  for (const f of outcome.writeFailures) {
    lines.push(
      `loadproof: RUN_FAILED: could not write ${f.file} (${f.error}); everything else measured is in the table above${outcome.summaryPath === null ? '' : ' and in summary.json'}`,
    );
  }
  return lines;
}
