/**
 * What a scenario that steps the rate up (capacity-step.yaml) shows about capacity, from summary.json
 * alone: each step's p95 with its 95 % interval against its band's target, its goodput and its 429 answers; the
 * highest rate served within its target (summary.json's `capacity`); the goodput plateau; when 429s began, at what
 * rate and of which kind. Only what the verdict judged: a step without a documented target says nothing of capacity.
 * The sentences are functions of the summary, so that every report and the brief say them alike.
 */
import type { Summary } from '../judge/index.js';

type Window = Summary['timeline'][number];
export type Counts429 = Window['answers429'];

export interface CapacityStep {
  /** The phase, and for a ramp's slice its rates. */
  readonly label: string;
  readonly phase: string;
  readonly fromRpm: number;
  readonly toRpm: number;
  /** Its phase's requests answered 2xx a model minute; null for a zero-length phase. */
  readonly goodputRpm: number | null;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly interval: readonly [number | null, number | null] | null;
  /** Its load band ('sustained', 'burst', 'spike'), or null without one. */
  readonly band: string | null;
  /** The documented p95 target of its band (ms), or null. */
  readonly targetMs: number | null;
  /** The verdict of its p95 check, or null without one. */
  readonly status: 'pass' | 'fail' | 'inconclusive' | null;
  /** 429 answers (every attempt) sent while it ran. */
  readonly answers429: Counts429;
  /** The step's 429 answers, every attempt counted: the phase's own, or for a ramp's band slice its windows'. */
  readonly http429: number;
  /** Of its phase's requests sent, the share that ended with a 429 (0–1); null when none was sent. */
  readonly ended429: number | null;
  /** 429s on requests the documented limits clearly allow (the phase's). */
  readonly findings: number;
}

export interface Capacity {
  readonly steps: readonly CapacityStep[];
  /** summary.json's capacity findings: the highest rate served, the plateau, the 429 share chosen. */
  readonly judged: NonNullable<Summary['capacity']>;
  /** The first step, by rate, whose p95 check failed or could not tell. */
  readonly firstNotHeld: CapacityStep | null;
  /** The first 429: when its request was sent (model s), its phase, the offered rate and kinds of its window. */
  readonly onset429: {
    readonly atS: number;
    readonly phase: string | null;
    readonly offeredRpm: number;
    readonly kinds: Counts429;
  } | null;
  readonly findings: number;
  /** The bucket's start the 429s were judged from, in words. */
  readonly startAssumption: string;
}

export const total429 = (c: Counts429): number => c.rateLimit + c.inFlight + c.other;

/** The 429 answers of the given timeline windows, by kind. */
export function sum429(windows: readonly Window[]): Counts429 {
  const sum = { rateLimit: 0, inFlight: 0, other: 0 };
  for (const w of windows) {
    sum.rateLimit += w.answers429.rateLimit;
    sum.inFlight += w.answers429.inFlight;
    sum.other += w.answers429.other;
  }
  return sum;
}

/** The 429 answers of the windows that start from `fromS` to before `toS` (model s). */
const answersIn = (summary: Summary, fromS: number, toS: number): Counts429 =>
  sum429(summary.timeline.filter((w) => w.startS >= fromS && w.startS < toS));

/** The capacity a stepping run shows, or undefined when the scenario does not step the rate up. */
export function capacityOf(summary: Summary): Capacity | undefined {
  // A summary without the field (shaped by hand) says nothing of capacity.
  const judged = summary.capacity ?? null;
  if (judged === null) return undefined;
  const shown = (v: number | null | 'unanswered'): number | null => (typeof v === 'number' ? v : null);
  const steps: CapacityStep[] = summary.phases.flatMap((p) =>
    p.bands.map((b) => {
      const check = summary.verdict.checks.find(
        (c) => c.id === 'latency_p95_target' && c.phase === p.name && c.band === b.band,
      );
      const sliced = p.bands.length > 1;
      return {
        label: sliced ? `${p.name} (${b.fromRpm}→${b.toRpm} rpm)` : p.name,
        phase: p.name,
        fromRpm: b.fromRpm,
        toRpm: b.toRpm,
        goodputRpm: p.goodputRpm,
        p50Ms: shown(b.steadyLatencyMs.p50),
        p95Ms: shown(b.steadyLatencyMs.p95),
        interval:
          check?.interval === undefined || check.interval === null
            ? null
            : [shown(check.interval[0] as number | null), shown(check.interval[1] as number | null)],
        band: b.band,
        targetMs: b.p95Ms,
        status: check === undefined ? null : check.status,
        answers429: answersIn(summary, sliced ? b.startS : p.startS, sliced ? b.endS : p.startS + p.durationS),
        // A whole phase counts its own requests' 429s (as the phase table does); a ramp's band slice has only the
        // timeline's windows, by send time.
        http429: sliced
          ? total429(answersIn(summary, b.startS, b.endS))
          : (p.envelope?.http429 ?? total429(answersIn(summary, p.startS, p.startS + p.durationS))),
        ended429: p.sent === 0 ? null : p.outcomes.http_429 / p.sent,
        findings: p.envelope.findings,
      };
    }),
  );
  const byRate = [...steps].sort((a, b) => a.toRpm - b.toRpm);
  const onset = summary.timeline.find((w) => total429(w.answers429) > 0);
  const first = summary.first429;
  return {
    steps,
    judged,
    firstNotHeld: byRate.find((s) => s.status === 'fail' || s.status === 'inconclusive') ?? null,
    onset429:
      onset === undefined
        ? null
        : {
            atS: first?.atS ?? onset.startS,
            phase: first?.phase ?? null,
            offeredRpm: onset.offeredRpm,
            kinds: onset.answers429,
          },
    findings: summary.phases.reduce((sum, p) => sum + p.envelope.findings, 0),
    startAssumption: summary.envelope.start.assumption,
  };
}

/** A moment of the run as the capacity sentences say it: seconds from its start, model time. */
const at = (s: number): string => `${s.toFixed(1)} s`;
const where = (phase: string | null): string => (phase === null ? '' : `, in ${phase}`);
const share = (f: number): string => `${Number((f * 100).toFixed(1))} %`;

/** The capacity headline: the highest rate served within its target, with the share of 429s allowed. */
export function capacityHeadline(summary: Summary): string | null {
  const c = summary.capacity;
  if (c === null) return null;
  const allowed =
    c.max429Share === 0
      ? 'no request refused with a 429'
      : `at most ${share(c.max429Share)} of its requests refused with a 429`;
  return c.highestServedRpm === null
    ? `No step was served within its target: none had its p95 interval under its documented target with ${allowed}.`
    : `The highest rate served within its target: ${c.highestServedRpm} requests a minute (${c.highestServedPhase}): its p95, with its 95 % interval, under its documented target, and ${allowed} (\`--capacity-429-share\` chooses the share).`;
}

/** The goodput plateau in words, or null when goodput kept climbing with the offered rate. */
export function plateauSentence(summary: Summary): string | null {
  const p = summary.capacity?.plateau;
  if (p === null || p === undefined) return null;
  return `From ${p.fromPhase} on the service accepted about ${Math.round(p.goodputRpm)} requests a minute (goodput ${p.goodputRpm.toFixed(1)} rpm) whatever was offered (${p.fromOfferedRpm}–${p.toOfferedRpm} rpm).`;
}

/**
 * Why the first 429 came where it came: the documented bucket replayed over the requests the service admitted, and
 * what `plan` predicted from the planned arrivals; empty without a 429.
 */
export function first429Sentences(summary: Summary): string[] {
  const f = summary.first429;
  if (f === null) return [];
  const limits = summary.guard.limits;
  const e = summary.envelope;
  const bucket = `a bucket of ${e.capacityTokens} tokens refilled at ${e.refillRpm} a minute, ${e.start.tokens >= e.capacityTokens ? 'full' : `${e.start.tokens.toFixed(1)} tokens`} at the start`;
  const state =
    f.usedUpSinceS === null
      ? `Replayed over the requests the service admitted, at their send times, the documented bucket (${bucket}) still held ${f.bucketTokens.toFixed(1)} tokens when it came, more than 1 + the envelope's margin (${e.marginTokens.toFixed(1)}). Send times are not when each request reached the service, whose clock decides: whether the 429 came inside the documented limits is the envelope check's to judge (below).`
      : `The burst allowance (${limits.burstRpm} requests a minute for ${limits.burstMinutes} minutes above the sustained ${limits.sustainedRpm}: ${bucket}) had been used up since ${at(f.usedUpSinceS)} (model time${phaseWords(summary, f.usedUpSinceS)}; from then on fewer than 1 + the envelope's margin of ${e.marginTokens.toFixed(1)} tokens, as near as the timing tells): replayed over the requests the service admitted, at their send times, it held ${f.bucketTokens.toFixed(1)} tokens when the 429 came.`;
  return [
    `The first 429 came at ${at(f.atS)} (model time, its request's send)${where(f.phase)}.`,
    state,
    predictedSentence(summary),
  ];
}

/** What `plan` predicted, and why the first 429 came elsewhere: the bucket each replay held for that request. */
function predictedSentence(summary: Summary): string {
  const f = summary.first429!;
  const e = summary.envelope;
  const tokens = `the plan's replay held ${f.predictedTokens.toFixed(1)} tokens for that request, the requests the service admitted left ${f.bucketTokens.toFixed(1)}`;
  if (f.predicted === null)
    return `\`loadproof plan\`, replaying the planned arrivals from a full bucket, predicted no 429: ${tokens}.`;
  if (f.predicted.phase === f.phase && Math.abs(f.predicted.atS - f.atS) < 1)
    return `\`loadproof plan\` predicted it there (at ${at(f.predicted.atS)}), replaying the planned arrivals from a full bucket.`;
  const why =
    e.start.tokens < e.capacityTokens
      ? ` This run's bucket was judged from ${e.start.tokens.toFixed(1)} tokens at the start, not full as \`plan\` assumes.`
      : f.predictedTokens < 1 + e.marginTokens
        ? ` With less than 1 + the envelope's margin (${e.marginTokens.toFixed(1)} tokens) that request was at the edge: when it reached the service, by the service's clock, decided it, so the difference is no finding.`
        : '';
  return `\`loadproof plan\` predicted the first 429 at ${at(f.predicted.atS)}${f.predicted.phase === null ? '' : ` (${f.predicted.phase})`}, replaying the planned arrivals from a full bucket; it came ${at(Math.abs(f.predicted.atS - f.atS))} ${f.atS < f.predicted.atS ? 'earlier' : 'later'}${where(f.phase)}: ${tokens}.${why}`;
}

/** ", in <phase>" for a moment of the run (model s). */
function phaseWords(summary: Summary, atS: number): string {
  const p = summary.phases.find((q) => atS >= q.startS && atS < q.startS + q.durationS);
  return p === undefined ? '' : `, in ${p.name}`;
}
