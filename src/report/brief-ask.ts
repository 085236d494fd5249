/** The brief's ask (the rate wanted, what the service accepted) and how the requests were sent. */
import type { Summary } from '../judge/index.js';
import { formatDuration } from '../scenario/index.js';
import type { ReportInput } from './content-types.js';
import { payloadText } from './identity-section.js';

type Phase = Summary['phases'][number];

const rpm = (v: number): string => (Number.isInteger(v) ? String(v) : v.toFixed(1));

/** Goodput over phases together: their 2xx a model minute. */
function goodputOf(phases: readonly Phase[]): number | null {
  const minutes = phases.reduce((m, p) => m + p.durationS / 60, 0);
  return minutes <= 0 ? null : phases.reduce((ok, p) => ok + p.outcomes.ok, 0) / minutes;
}

/**
 * The limit wanted and why: the highest rate offered and how long, against the goodput the service gave at it (and at
 * best); then, for a stepping run, the lead of the capacity lines that follow as a list.
 */
export function askLines(summary: Summary, capacityLines: readonly string[]): string[] {
  const limits = summary.guard.limits;
  const peak = Math.max(0, ...summary.phases.map((p) => Math.max(p.fromRpm, p.toRpm)));
  const atPeak = summary.phases.filter((p) => p.fromRpm === peak && p.toRpm === peak);
  const got = goodputOf(atPeak.length > 0 ? atPeak : summary.phases.filter((p) => p.toRpm === peak));
  const best = summary.phases
    .filter((p) => p.goodputRpm !== null)
    .reduce<Phase | undefined>((b, p) => (b === undefined || p.goodputRpm! > b.goodputRpm! ? p : b), undefined);
  const heldFor = atPeak.reduce((s, p) => s + p.durationS, 0);
  const lines = [
    `We need ${rpm(peak)} requests a minute ${heldFor > 0 ? `sustained for ${formatDuration(heldFor * 1000)}` : 'at the top of a ramp'} (the highest rate this test offered${heldFor > 0 ? ', and how long' : ''}); we got ${got === null ? 'no figure' : rpm(Math.round(got * 10) / 10)}: the requests answered 2xx a minute (goodput) at that rate.`,
    ...(best === undefined
      ? []
      : [
          `The most the service accepted in any phase: ${rpm(best.goodputRpm!)} requests a minute answered 2xx (${best.name}, offered ${rpm(best.offeredRpm)}). Goodput per phase is in the table below, beside the rate offered.`,
        ]),
    `The documented limits: ${limits.sustainedRpm} requests a minute sustained, bursts to ${limits.burstRpm} for ${limits.burstMinutes} minutes, brief spikes to ${limits.spikeRpm}, at most ${limits.maxInFlight} in flight.`,
  ];
  // The capacity lines themselves follow as a list (brief-content.ts): a dozen sentences read badly as one paragraph.
  if (capacityLines.length > 0) lines.push('What the steps showed:');
  return lines;
}

/** The client_id (only when given), the retry policy, the concurrency and deadline, the texts sent. */
export function sendingLines({ summary, scenario }: ReportInput, clientId: string | undefined): string[] {
  const on429 = scenario.on429;
  return [
    clientId === undefined
      ? 'client_id: not named in this brief (`--brief-client-id <id>` on `loadproof run` or `loadproof report` names it). The client secret and access token never appear in it.'
      : `client_id: \`${clientId}\` (named with \`--brief-client-id\`). The client secret and access token never appear in this brief.`,
    on429.policy === 'record'
      ? '429 policy: record. Each 429 is its request’s outcome; nothing was retried.'
      : `429 policy: retry. Retry-After honoured, else exponential back-off from ${formatDuration(on429.baseDelayMs)} to ${formatDuration(on429.maxDelayMs)} with full jitter; at most ${on429.maxAttempts} attempts a request, the first included (${summary.overall.attempts} attempts for ${summary.overall.sent} requests sent). Retries come on top of the offered rate.`,
    `Concurrency: an open model. Each request went at its scheduled time whatever the earlier ones' answers (no fixed pool of users), at most ${scenario.maxInFlight} in flight (beyond it a request is dropped, not sent: ${summary.counts.dropped} were). Client deadline ${formatDuration(scenario.timeoutMs)} a request, above the service's 15 s gateway timeout, so its 504 is seen.`,
    `Texts per request (tokens estimated from the characters): ${payloadText(summary.payload)}.`,
  ];
}
