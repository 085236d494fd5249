/**
 * The evidence: what was sent, the 429s against the documented limits, latency against the targets, the generator's
 * lag.
 */
import type { Summary } from '../judge/index.js';
import { formatDuration } from '../scenario/index.js';
import { sum429, total429 } from './capacity.js';
import { errorsOf, kindsOf429, plural } from './figure-text.js';
import { foldLateNotes } from './late-notes.js';
import { findingTarget, inTargetWords, targetText } from './target-text.js';

type Phase = Summary['phases'][number];
type Check = Summary['verdict']['checks'][number];
type Window = Summary['timeline'][number];

/** The phase a time (model s from the start) falls in. */
const phaseAt = (summary: Summary, startS: number): Phase | undefined =>
  summary.phases.find((p) => startS >= p.startS && startS < p.startS + p.durationS);

/** The first timeline window in which a 429 answer came (any attempt, a retried one included), or undefined. */
const first429 = (summary: Summary): Window | undefined => summary.timeline.find((w) => total429(w.answers429) > 0);

/**
 * Facts only, each from the summary, in short paragraphs: what was sent and where, the documented limits
 * and the 429s against them, latency against the targets, failures, the generator's own lag.
 */
interface Evidence {
  readonly paragraphs: readonly string[];
  /** The generator's lateness: one sentence, and the note of each late phase as its detail; null when on time. */
  readonly lateness: { readonly summary: string; readonly lines: readonly string[] } | null;
}

export function evidence(summary: Summary, real: boolean): Evidence {
  const o = summary.overall;
  const model = summary.timeScale === 1 ? '' : ` of model time (run ${summary.timeScale}× faster against the mock)`;
  const scope = [
    `The run planned ${plural(summary.counts.planned, 'request')} over ${formatDuration(summary.modelDurationS * 1000)}${model}, offered at up to ${peakOfferedRpm(summary)} requests a minute (first attempts; retries come on top), and sent ${o.sent}${o.sentOfPlanned === null ? '' : ` (${(o.sentOfPlanned * 100).toFixed(1)} % of the plan)`}.`,
  ];
  if (!real)
    scope.push(
      `Its target was ${targetText(summary)}, not the service: it shows how the scenario and loadproof behave, and says nothing of the service itself.`,
    );

  const limits = summary.guard.limits;
  const refusals = [
    `The documented limits it is judged against: ${limits.sustainedRpm} requests a minute sustained, bursts to ${limits.burstRpm} for ${limits.burstMinutes} minutes, brief spikes to ${limits.spikeRpm}, at most ${limits.maxInFlight} in flight${limits.reference === null ? '' : ` (${limits.reference})`}.`,
  ];
  const w = first429(summary);
  if (w === undefined) refusals.push('No answer was a 429.');
  else {
    // The first 429 itself (its request's send), not the start of the window it was counted in.
    const atS = summary.first429?.atS ?? w.startS;
    const phase = phaseAt(summary, atS);
    const all429 = sum429(summary.timeline);
    const windowMs =
      summary.timeline.length > 1 ? (summary.timeline[1]!.startS - summary.timeline[0]!.startS) * 1000 : 10_000;
    refusals.push(
      `The first 429 came at ${atS.toFixed(1)} s (model time) into the run${phase === undefined ? '' : ` (phase ${phase.name})`}, when the offered rate was ${w.offeredRpm} requests a minute: ${kindsOf429(w.answers429)} in the ${formatDuration(windowMs)} window it came in.`,
      `In all ${plural(total429(all429), 'answer')} ${total429(all429) === 1 ? 'was' : 'were'} 429 (${kindsOf429(all429)}); ${plural(o.outcomes.http_429, 'request')} ended with one (not retried, or out of attempts).`,
      ...judged429s(summary),
    );
  }

  const latency: string[] = [];
  const p95 = summary.verdict.checks.filter((c) => c.id === 'latency_p95_target');
  const failed = p95.filter((c) => c.status === 'fail');
  const unsure = p95.filter((c) => c.status === 'inconclusive');
  const where = (c: Check): string => `${c.phase}${c.band === undefined ? '' : ` (${c.band} band)`}`;
  if (p95.length > 0 && failed.length === 0 && unsure.length === 0)
    latency.push(
      'Every p95 was under its documented target: for each, the upper end of its 95 % interval is under the target.',
    );
  for (const c of failed) latency.push(`${where(c)}: ${c.reason}: over the documented target.`);
  for (const c of unsure) latency.push(`${where(c)}: ${c.reason}: not enough to say.`);
  const failures = errorsOf(o);
  latency.push(
    o.outcomes.http_504 === 0 && failures === 0
      ? 'No request timed out at the gateway (504) or failed otherwise.'
      : `${plural(o.outcomes.http_504, 'request')} timed out at the gateway (504); ${failures} failed otherwise (client timeouts, resets, other statuses).`,
  );
  if (summary.firstRedirect !== null)
    latency.push(
      `The first redirect was ${summary.firstRedirect}: loadproof does not follow redirects, so each counts among these errors (other statuses), and where it pointed is not measured.`,
    );
  // Named apart: an answer too large to read says something is wrong with the service (or what answers for it), not
  // with the network.
  const tooLarge = o.errors.too_large ?? 0;
  if (tooLarge > 0)
    latency.push(
      `${plural(tooLarge, 'answer')} larger than loadproof reads (too_large: over the answer-size cap, not read on, the connection closed) counted among them.`,
    );

  const generator: string[] = [];
  const lag = summary.generator.sendLagWallMs;
  if (lag.p99 !== null)
    generator.push(
      `The generator sent on schedule within ${lag.p99.toFixed(1)} ms (p99 of its send lag, wall time). Latency runs from the intended send time, so its lag is counted, never hidden.`,
    );
  // The notes on missing Retry-After are said with the 429s above; the generator's lateness, a note per phase, is
  // folded under one sentence.
  const notes = summary.verdict.notes
    .filter((n) => !n.includes('which the spec requires on every 429'))
    .map((n) => inTargetWords(summary, n));
  const { others, lateness: late } = foldLateNotes(notes);
  generator.push(...others);
  if (late !== null) generator.unshift(late.summary);
  return {
    paragraphs: [scope, refusals, latency, generator].filter((p) => p.length > 0).map((p) => p.join(' ')),
    lateness: late,
  };
}

/** The 429s against the envelope: findings, the bucket's start they were judged from, and any without Retry-After. */
function judged429s(summary: Summary): string[] {
  const envelope = summary.phases.reduce(
    (acc, p) => ({
      findings: acc.findings + p.envelope.findings,
      edge: acc.edge + p.envelope.edge,
      ifFull: acc.ifFull + p.envelope.ifFullAtStart,
    }),
    { findings: 0, edge: 0, ifFull: 0 },
  );
  const sentences = summary.phases.some((p) => p.envelope.shared === true)
    ? [
        "In a shard they are not judged: the service's bucket was shared with the other shards' requests, which this shard did not see; `loadproof merge` judges every 429 against it.",
      ]
    : [
        envelope.findings === 0
          ? `None came on a request the documented limits clearly allow${envelope.edge > 0 ? ` (${envelope.edge} came within the margin of the limit, where neither side can be blamed)` : ''}.`
          : `${envelope.findings} came on requests the documented limits clearly allow: a finding against ${findingTarget(summary)}.`,
        startSentence(summary.envelope.start, envelope.ifFull - envelope.findings),
      ];
  const missing = summary.overall.http429WithoutRetryAfter;
  if (missing > 0)
    sentences.push(
      `${missing} of them came without a Retry-After in whole seconds, which the spec requires on every 429: there the service does not meet its spec.`,
    );
  return sentences;
}

/** What the envelope assumed of the client's bucket at the start, and what a full one would have changed. */
function startSentence(start: Summary['envelope']['start'], more: number): string {
  const judged = `Each was ${start.assumption}.`;
  if (start.full || more <= 0) return judged;
  const idle = formatDuration(start.fullAfterIdleS * 1000);
  return `${judged} From a full bucket ${more} more would be ${more === 1 ? 'a finding' : 'findings'}: a client idle for ${idle} before the run has one, and \`--idle-before ${idle}\` declares it (on \`loadproof run\`, or later on \`loadproof report <run-folder>\`, which judges the folder again).`;
}

/** The highest rate the plan offered (first attempts), requests a minute: a ramp's top included. */
const peakOfferedRpm = (summary: Summary): number =>
  Math.max(0, ...summary.phases.map((p) => Math.max(p.fromRpm, p.toRpm)));
