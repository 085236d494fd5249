/** The identity table: what was run, where, when, by which version, with which texts. */
import type { Summary } from '../judge/index.js';
import { formatDuration } from '../scenario/index.js';
import type { ReportInput } from './content-types.js';
import { plural, utc } from './figure-text.js';
import { shardShare } from './shard-share.js';
import { targetText } from './target-text.js';

export function identity({ summary, run, scenario }: ReportInput): string[][] {
  const notice = scenario.notice;
  const wall = (Date.parse(summary.endedAt ?? summary.reportedAt) - Date.parse(summary.startedAt)) / 1000;
  const host = run.host;
  const rows: string[][] = [
    [
      'Verdict',
      `${summary.verdict.status.toUpperCase()} (exit ${summary.exitCode})${summary.partial ? ' — partial: the run did not end normally' : ''}`,
    ],
    ...(!summary.shard
      ? []
      : [
          [
            'Shard',
            `${summary.shard.index} of ${summary.shard.count}: ${shardShare(summary)}. Its counts, rates and verdict are of its share only, and its 429s are not judged (the service's bucket was shared); the test's verdict is \`loadproof merge\`'s, over every shard`,
          ],
        ]),
    ...(!summary.mergedFrom
      ? []
      : [
          [
            'Merged from',
            `${summary.mergedFrom.length} shards (${summary.mergedFrom.map((m) => m.index).join(', ')}), judged again over all their events${!summary.startAt ? '' : `, from the common start ${utc(summary.startAt)}`}`,
          ],
        ]),
    ['Environment', targetText(summary)],
    ['Scenario', `${summary.scenario} — ${summary.description}`],
    ['Scenario file', `${run.scenarioFile} (copy of ${run.scenarioSource}), ${run.scenarioSha256}`],
    ['Plan', `${summary.counts.planned} requests, ${summary.planIdentity}`],
    ['Texts sent', payloadText(summary.payload)],
    ...(!summary.startAt
      ? []
      : [
          [
            'Start',
            `--start-at ${utc(summary.startAt)} (wall clock)${summary.startLateMs == null ? '' : summary.startLateMs === 0 ? ', on time' : `, ${summary.startLateMs} wall ms late (in the send lag)`}`,
          ],
        ]),
    [
      'Run window',
      `${utc(summary.startedAt)} – ${summary.endedAt === null ? 'not ended' : utc(summary.endedAt)} (wall clock: ${formatDuration(wall * 1000)} of wall time; ${summary.timeScale === 1 ? 'at time scale 1, model time is wall time' : `its schedule ${formatDuration(summary.modelDurationS * 1000)} of model time`})`,
    ],
    [
      'Time scale',
      summary.timeScale === 1
        ? '1 (real time)'
        : // This table's own times are wall clock: the claim is about the rest of the report.
          `${summary.timeScale} (against the mock: the schedule ran ${summary.timeScale} times faster than model time; the report's durations, rates and latencies outside this table are model time)`,
    ],
    ['loadproof', `${summary.loadproofVersion} (judged by ${summary.judgedBy})`],
  ];
  if (host !== undefined)
    rows.push(
      [
        'Host',
        `Node ${host.node}, ${host.os}, ${host.cpu}${host.gitCommit === null ? '' : `, git commit ${host.gitCommit}`}`,
      ],
      ['Command', host.commandLine.join(' ')],
    );
  rows.push(
    [
      'Advance notice',
      notice === undefined
        ? 'none given'
        : `announced ${notice.announcedOn}, reference ${notice.reference}${notice.window === undefined ? '' : `, window ${notice.window.start} – ${notice.window.end}`}`,
    ],
    [
      'Coordination',
      scenario.coordination === undefined ? 'none given' : `reference ${scenario.coordination.reference}`,
    ],
  );
  return rows;
}

/** The texts sent, by size and source (never the texts). */
export function payloadText(p: Summary['payload']): string {
  if (p === null) return 'not recorded';
  const from =
    p.source === 'files'
      ? `the user's texts in ${p.path} (${plural(p.documents, 'document')} drawn${p.empty.length > 0 ? `; ${p.empty.length} empty, not sent` : ''})`
      : p.source === 'documents'
        ? `generated clinical documents (${plural(p.documents, 'document')})`
        : 'generated clinical notes';
  const sizes =
    p.characters === null || p.estimatedTokens === null
      ? 'none sent'
      : `${p.characters.min}–${p.characters.max} characters (mean ${Math.round(p.characters.mean)}), ${p.estimatedTokens.min}–${p.estimatedTokens.max} estimated tokens`;
  const split =
    p.splitDocuments > 0
      ? `; ${plural(p.splitDocuments, 'document')} over ${p.split.maxTokens} tokens less ${Math.round(p.split.margin * 100)} % split into pieces`
      : '';
  return `${plural(p.texts, 'text')}: ${sizes}; from ${from}${split}`;
}
