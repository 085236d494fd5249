/** The brief's timeline: each phase with its UTC start, request ids and answers; the 429s and 504s in words. */
import type { Summary } from '../judge/index.js';
import { formatDuration } from '../scenario/index.js';
import { sum429, total429 } from './capacity.js';
import type { ReportTable } from './content-types.js';
import { errorsOf, kindsOf429, ms, plural } from './figure-text.js';
import { shardShare } from './shard-share.js';
import { findingTarget } from './target-text.js';

type Window = Summary['timeline'][number];

/** The wall-clock UTC time (hh:mm:ss) of a model time (s from the start). */
function wallUtc(summary: Summary, modelS: number): string {
  const at = new Date(Date.parse(summary.startedAt) + (modelS * 1000) / summary.timeScale);
  return `${at.toISOString().slice(11, 19)} UTC`;
}

/** Each phase's first and last x-loadproof-seq: the plan numbers its requests from 0, phase after phase. */
function seqRanges(summary: Summary): string[] {
  let next = 0;
  return summary.phases.map((p) => {
    const range = p.planned === 0 ? '—' : `${next}–${next + p.planned - 1}`;
    next += p.planned;
    return summary.shard ? '—' : range;
  });
}

export function requestIdLine(summary: Summary): string {
  const last = summary.counts.planned - 1;
  const shard = summary.shard
    ? ` This folder is shard ${summary.shard.index} of ${summary.shard.count}: it sent ${shardShare(summary)}.`
    : '';
  // A shard's seqs are the whole plan's, which its own count does not bound.
  const range = summary.shard
    ? "the whole plan's, as events.ndjson lists them"
    : `0–${Math.max(0, last)}, each phase's range in the table`;
  return `Request ids: every request carries the header \`x-loadproof-seq: <n>\`, its number in the plan (${range}), and \`x-loadproof-attempt: <k>\` (1 for the first attempt, 2 and on for retries).${shard}`;
}

export function briefPhaseTable(summary: Summary): ReportTable {
  const seqs = seqRanges(summary);
  return {
    head: [
      'Phase',
      'Starts (UTC, wall)',
      'Length (model)',
      'Offered rpm',
      'x-loadproof-seq',
      'Sent',
      '2xx',
      'Goodput (2xx/min)',
      '429',
      '504',
      'Errors',
      'p95',
      'Target p95',
    ],
    rows: summary.phases.map((p, i) => [
      p.name,
      wallUtc(summary, p.startS),
      formatDuration(p.durationS * 1000),
      String(p.offeredRpm),
      seqs[i]!,
      String(p.sent),
      String(p.outcomes.ok),
      p.goodputRpm === null ? '—' : p.goodputRpm.toFixed(1),
      String(p.outcomes.http_429),
      String(p.outcomes.http_504),
      String(errorsOf(p)),
      ms(p.steadyLatencyMs.p95),
      p.target !== null ? `< ${ms(p.target.p95Ms)}` : p.bands.length > 1 ? 'by band' : '—',
    ]),
    numeric: [3, 5, 6, 7, 8, 9, 10, 11],
  };
}

/** Where a timeline window falls: model time from the start, its wall time, its phase. */
function windowText(summary: Summary, w: Window): string {
  const phase = summary.phases.find((p) => w.startS >= p.startS && w.startS < p.startS + p.durationS);
  return `in the window from ${formatDuration(w.startS * 1000)} of model time (${wallUtc(summary, w.startS)})${phase === undefined ? '' : `, ${phase.name} (offered ${phase.offeredRpm} requests a minute)`}`;
}

/**
 * The first 429 at its own time (its request's send), as the capacity section and the evidence give it, with its wall
 * time; the window it was counted in only when the summary does not have it.
 */
function firstText(summary: Summary, w: Window): string {
  const f = summary.first429;
  if (f === null) return `The first 429 came ${windowText(summary, w)}`;
  const phase = summary.phases.find((p) => p.name === f.phase);
  return `The first 429 came at ${f.atS.toFixed(1)} s of model time (${wallUtc(summary, f.atS)}, wall time)${phase === undefined ? '' : `, in ${phase.name} (offered ${phase.offeredRpm} requests a minute)`}`;
}

/** The 429s and 504s: when they began and ended, how many, and whether any came inside the documented envelope. */
export function refusalLines(summary: Summary): string[] {
  const lines: string[] = [];
  const with429 = summary.timeline.filter((w) => total429(w.answers429) > 0);
  if (with429.length === 0) lines.push('No answer was a 429.');
  else {
    const all = sum429(summary.timeline);
    const findings = summary.phases.reduce((n, p) => n + p.envelope.findings, 0);
    const edge = summary.phases.reduce((n, p) => n + p.envelope.edge, 0);
    lines.push(
      `${firstText(summary, with429[0]!)}; the last ${windowText(summary, with429.at(-1)!)}.`,
      `In all ${plural(total429(all), 'answer')} were 429 (${kindsOf429(all)}); ${plural(summary.overall.outcomes.http_429, 'request')} ended with one.`,
      summary.phases.some((p) => p.envelope.shared === true)
        ? 'Inside the documented envelope: not judged in a shard (the bucket was shared with the other shards).'
        : findings === 0
          ? `Inside the documented envelope: none. No 429 came on a request the documented limits clearly allow${edge > 0 ? ` (${edge} came within the margin of the limit, where neither side can be blamed)` : ''}; each was ${summary.envelope.start.assumption}.`
          : `Inside the documented envelope: ${findings}. They came on requests the documented limits clearly allow, a finding against ${findingTarget(summary)}; each was ${summary.envelope.start.assumption}.`,
    );
    if (summary.overall.http429WithoutRetryAfter > 0)
      lines.push(
        `${summary.overall.http429WithoutRetryAfter} came without the Retry-After (whole seconds) the spec requires on every 429.`,
      );
  }
  const with504 = summary.timeline.filter((w) => w.http504 > 0);
  lines.push(
    with504.length === 0
      ? 'No answer was a 504 (the gateway timeout).'
      : `${plural(summary.overall.outcomes.http_504, 'request')} ended with a 504 (the gateway timeout): the first ${windowText(summary, with504[0]!)}, the last ${windowText(summary, with504.at(-1)!)}.`,
  );
  return lines;
}
