/**
 * notice.md: the advance notice as it is sent to support, and nothing else (no instructions to the user). Plain
 * Markdown that reads the same unrendered: headings, bullet lines, one table indented as preformatted text, so any
 * ticket system or e-mail shows it as written.
 */
import { escapeInvisible, formatTable } from '../core/index.js';
import { formatDuration } from '../scenario/index.js';
import { TRAFFIC_RULES } from '../spec/index.js';
import type { AdvanceNotice } from './advance-notice.js';
import { rateText } from './notice-schedule.js';
import { formatSpanMs } from './traffic.js';

const n0 = (x: number): string => x.toLocaleString('en-US');
/** A time from the start in whole seconds (rounded up): support reads an e-mail, not a log. */
const span = (ms: number): string => formatSpanMs(Math.ceil(ms / 1000) * 1000);
/** 2026-12-15T09:00:00Z → 2026-12-15 09:00:00 UTC: the form people search their logs with. */
const utc = (iso: string): string => `${iso.replace('T', ' ').replace(/Z$/, '')} UTC`;

export function noticeMarkdown(n: AdvanceNotice): string {
  const api = n.documents === null ? 'PHI Identification API' : 'PHI Identification and Obfuscation APIs';
  return [
    `# Advance notice: load test of the ${n.environment} ${api}`,
    '',
    `We plan a load test of the ${api} in ${n.environment} and announce it ahead, as the traffic rules ask${n.noticeRule ? ` (at least ${TRAFFIC_RULES.sandboxNoticeDays} days before)` : ''}.`,
    '',
    ...who(n),
    '',
    '## When (UTC)',
    '',
    `- Start: between ${utc(n.start)} and ${utc(n.startBy)} (a start window of ${formatDuration(n.startWindowMs)}).`,
    `- Length: ${span(n.runMs)} from its start, the last request's longest possible answer included.`,
    `- All traffic falls between ${utc(n.start)} and ${utc(n.windowEnd)}.`,
    '',
    '## Schedule',
    '',
    `Shape: ${n.shape}. Times are from the start of the test.`,
    '',
    ...scheduleTable(n).map((line) => `    ${line}`),
    '',
    '## Rates and concurrency',
    '',
    `- Peak: ${n0(n.peakRpm)} requests in a minute (the most in any 60 s).`,
    `- Requests in all: ${n0(n.requests)}${n.documents === null ? '' : ` identification requests for ${n0(n.documents)} documents, and ${n0(n.documents)} obfuscation calls`}${n.worstCaseRequests === n.requests ? ' (429s are not retried)' : `; at most ${n0(n.worstCaseRequests)} if every 429 is retried`}.`,
    `- In flight at most: ${n.maxInFlight} requests.`,
    `- Above 200 requests a minute for more than 5 minutes: ${n.coordination.applies ? `yes (${n.coordination.message}), so we ask for it to be coordinated` : 'no'}.`,
    '',
    '## What is sent',
    '',
    ...n.payload.map((p) => `- ${p}`),
    '',
    '## 429s we expect',
    '',
    ...expected429s(n),
    '',
    'Please confirm the window, and give us a reference for this test.',
    '',
  ]
    .map(escapeInvisible) // the scenario's text (names, references) cannot hide or reorder what support reads
    .join('\n');
}

function who(n: AdvanceNotice): string[] {
  return [
    `- Environment: ${n.environment}${n.baseUrl === null ? '' : ` (${n.baseUrl})`}`,
    ...(n.clientId === null ? [] : [`- Client ID: ${n.clientId}`]),
    ...(n.contact === null ? [] : [`- Contact: ${n.contact}`]),
    ...(n.noticeReference === null ? [] : [`- Support case: ${n.noticeReference}`]),
    ...(n.coordination.reference === null
      ? n.coordination.applies
        ? ['- Coordination reference: none yet; this test needs one (above 200 rpm for more than 5 minutes)']
        : []
      : [`- Coordination reference: ${n.coordination.reference}`]),
    `- Test: ${n.scenario} — ${n.description}`,
  ];
}

function scheduleTable(n: AdvanceNotice): string[] {
  const deid = n.documents !== null;
  const rows = [
    ['phase', 'from', 'to', 'rate', deid ? 'documents → requests' : 'requests'],
    ...n.schedule.map((p) => [
      p.name,
      `+${span(p.offsetMs)}`,
      `+${span(p.offsetMs + p.durationMs)}`,
      p.documents === null
        ? rateText(p.fromRpm, p.toRpm)
        : `${rateText(p.documents.fromRpm, p.documents.toRpm, 'documents/min')} (${rateText(p.fromRpm, p.toRpm)})`,
      p.documents === null ? n0(p.requests) : `${n0(p.documents.count)} → ${n0(p.requests)}`,
    ]),
    [
      'total',
      '',
      `+${span(n.schedule.reduce((end, p) => Math.max(end, p.offsetMs + p.durationMs), 0))}`,
      '',
      deid ? `${n0(n.documents!)} → ${n0(n.requests)}` : n0(n.requests),
    ],
  ];
  return formatTable(rows);
}

function expected429s(n: AdvanceNotice): string[] {
  const { limits, raisedBy, phases } = n.predicted429s;
  const source =
    raisedBy === null
      ? `the documented limits (${limits.sustainedRpm} rpm sustained, ${limits.burstRpm} rpm for ${limits.burstMinutes} minutes)`
      : `the limits raised in ${raisedBy} (${limits.sustainedRpm} rpm sustained, ${limits.burstRpm} rpm for ${limits.burstMinutes} minutes)`;
  const refusing = phases.filter((p) => p.refused > 0);
  if (refusing.length === 0)
    return [`None: the test stays under ${source}, counted from an idle client. A 429 would surprise us.`];
  const total = refusing.reduce((sum, p) => sum + p.refused, 0);
  const first = refusing[0]!;
  return [
    `From ${source}, counted from an idle client: the first 429 about ${span(first.firstAtMs!)} after the start, in ${first.phase}; about ${n0(total)} of the ${n0(n.requests)} requests answered 429 in all. The test is meant to show where the limit is:`,
    '',
    ...refusing.map((p) => `- ${p.phase}: about ${n0(p.refused)}`),
  ];
}
