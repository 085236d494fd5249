/**
 * The brief: a run's evidence as a support ticket wants it, readable alone — what was tested and when (the UTC window
 * to search their logs), where, the request ids on the wire, the limit wanted and what the service accepted, how the
 * requests were sent, the 429s and 504s phase by phase, and the manifest it belongs to. brief.md holds it whole;
 * report.html shows it as a section. It says what the service did, never a verdict as if that answered the request.
 */
import { formatDuration } from '../scenario/index.js';
import { askLines, sendingLines } from './brief-ask.js';
import { BRIEF_MANIFEST_LINE } from './brief-file.js';
import { briefPhaseTable, refusalLines, requestIdLine } from './brief-timeline.js';
import { capacitySections } from './capacity-section.js';
import type { BriefContent, ReportInput } from './content-types.js';
import { utc } from './figure-text.js';
import { NO_GROUND_TRUTH_LINE, phiHeadline } from './phi-words.js';
import { targetText } from './target-text.js';

interface BriefOptions {
  /** SHA-256 of the manifest.json the brief belongs to; null where it cannot be known yet (report.html). */
  readonly manifestSha256: string | null;
  /** The client_id to name, only when the user asked for it (`--brief-client-id`). */
  readonly clientId?: string | undefined;
}

export function briefContent(input: ReportInput, options: BriefOptions): BriefContent {
  const { summary, run } = input;
  const capacityLines = capacitySections(input).capacity?.lines ?? [];
  const wallEnd = summary.endedAt ?? summary.reportedAt;
  const scale =
    summary.timeScale === 1
      ? 'Real time: every time and rate here is as the service saw it.'
      : `Time scale ${summary.timeScale}: the run was ${summary.timeScale}× faster than the schedule against the mock; rates and durations here are model time (as the schedule reads), the UTC times are wall time.`;
  return {
    title: `Load-test brief: ${summary.scenario}${summary.partial ? ' (partial run)' : ''}`,
    formOnly:
      summary.target.kind === 'real'
        ? null
        : `This run was against ${targetText(summary)}, not the service: this brief shows the form only, and is no evidence about the service.`,
    sections: [
      { heading: 'What we ask, and why', lines: askLines(summary, capacityLines), bullets: capacityLines },
      {
        heading: 'What was tested, and when',
        lines: [
          `Scenario \`${summary.scenario}\`: ${summary.description}${/[.?!]$/.test(summary.description) ? '' : '.'}`,
          `Environment and target: ${targetText(summary)}.`,
          `UTC window to search your logs: ${utc(summary.startedAt)} – ${utc(wallEnd)}${summary.endedAt === null ? ' (the run did not end normally; the report time)' : ''}.`,
          `${summary.counts.planned} requests planned over ${formatDuration(summary.modelDurationS * 1000)} in ${summary.phases.length} phases; ${summary.overall.sent} sent. ${scale}`,
          requestIdLine(summary),
          ...recallLine(summary),
        ],
        table: briefPhaseTable(summary),
      },
      { heading: 'How the requests were sent', lines: sendingLines(input, options.clientId) },
      { heading: '429 and 504 answers', lines: refusalLines(summary) },
      {
        heading: 'The evidence this brief belongs to',
        lines: [
          options.manifestSha256 === null
            ? `${BRIEF_MANIFEST_LINE} in brief.md beside this report (written after manifest.json, which it names), and on the run's \`evidence:\` line.`
            : `${BRIEF_MANIFEST_LINE} \`${options.manifestSha256}\``,
          `Scenario file \`${run.scenarioSha256}\`; plan \`${summary.planIdentity}\`; loadproof ${summary.loadproofVersion} (judged by ${summary.judgedBy}).`,
          "`loadproof verify <run folder>` hashes every file of the run folder against manifest.json, and checks that this brief names that manifest. The folder (or its zip) is the evidence; this brief is its summary and not a part of the manifest's list.",
          `loadproof's own checks (p95 per load band against the documented targets, errors, the 429s against the documented limits): ${summary.verdict.status}. They judge the service at the load it accepted; they do not say whether its limit is enough.`,
        ],
      },
    ],
  };
}

/** mode deid: the one line of recall (summary.json `phi`), or that without ground truth it cannot be known. */
function recallLine(summary: ReportInput['summary']): string[] {
  if (summary.deid === null) return [];
  return [summary.phi === null ? NO_GROUND_TRUTH_LINE : phiHeadline(summary.phi)];
}
