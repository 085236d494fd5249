/**
 * What a notice tells support about the traffic itself: the schedule phase by phase (a stepped or ramped test is not
 * "a sustained rate"), the shape in one sentence, and what each request carries.
 */
import type { Plan } from '../plan/index.js';
import { formatDuration } from '../scenario/index.js';
import { estimateModelTokens, IDENTIFICATION_LIMITS, maxCharactersFor } from '../spec/index.js';
import { tokenCallsText } from './token-calls.js';

export interface ScheduledPhase {
  readonly name: string;
  /** From the run start (model ms; a real environment runs at time scale 1). */
  readonly offsetMs: number;
  readonly durationMs: number;
  /** Identification requests a minute at the start and the end of the phase (equal for a constant rate). */
  readonly fromRpm: number;
  readonly toRpm: number;
  readonly requests: number;
  /** mode deid: documents in the phase, and their rate. */
  readonly documents: { readonly count: number; readonly fromRpm: number; readonly toRpm: number } | null;
}

export function scheduleOf(plan: Plan): ScheduledPhase[] {
  return plan.phases.map((p) => ({
    name: p.name,
    offsetMs: p.startMs,
    durationMs: p.durationMs,
    fromRpm: p.fromRpm,
    toRpm: p.toRpm,
    requests: p.arrivalsMs.length,
    documents: p.documents ?? null,
  }));
}

const round = (rpm: number): string => String(Math.round(rpm * 10) / 10);

/** "100 rpm", "100 → 300 rpm". */
export function rateText(from: number, to: number, unit = 'rpm'): string {
  return from === to ? `${round(from)} ${unit}` : `${round(from)} → ${round(to)} ${unit}`;
}

/**
 * The plan's shape in one sentence: constant, stepped (three or more equal steps of one length), ramped, or phases of
 * their own. In mode deid, in documents a minute: the rate the scenario states.
 */
export function shapeOf(schedule: readonly ScheduledPhase[]): string {
  const live = schedule
    .filter((p) => p.durationMs > 0)
    .map((p) => ({ durationMs: p.durationMs, ...(p.documents ?? { fromRpm: p.fromRpm, toRpm: p.toRpm }) }));
  const unit = schedule.some((p) => p.documents !== null) ? 'documents/min' : 'rpm';
  if (live.length === 0) return 'no traffic';
  const ramps = live.filter((p) => p.fromRpm !== p.toRpm).length;
  const [first, last] = [live[0]!, live.at(-1)!];
  if (live.length === 1)
    return ramps === 0
      ? `one constant rate: ${rateText(first.fromRpm, first.toRpm, unit)} for ${formatDuration(first.durationMs)}`
      : `one ramp: ${rateText(first.fromRpm, first.toRpm, unit)} over ${formatDuration(first.durationMs)}`;
  const rates = live.map((p) => p.fromRpm);
  const steps = rates.slice(1).map((r, i) => r - rates[i]!);
  const stepped =
    live.length >= 3 &&
    ramps === 0 &&
    live.every((p) => p.durationMs === first.durationMs) &&
    steps.every((s) => s !== 0 && Math.abs(s - steps[0]!) < 1e-9);
  if (stepped)
    return `stepped: ${rateText(first.fromRpm, last.toRpm, unit)} in ${live.length} steps of ${round(Math.abs(steps[0]!))} ${unit}, ${formatDuration(first.durationMs)} each`;
  const low = Math.min(...live.flatMap((p) => [p.fromRpm, p.toRpm]));
  const high = Math.max(...live.flatMap((p) => [p.fromRpm, p.toRpm]));
  return `${live.length} phases${ramps > 0 ? ` (${ramps} of them ${ramps === 1 ? 'a ramp' : 'ramps'})` : ''}, between ${round(low)} and ${round(high)} ${unit}: see the schedule`;
}

/** What one request carries, in characters and the spec's estimated model tokens. */
export function payloadOf(plan: Plan, processes = 1): string[] {
  const s = plan.scenario;
  const p = s.payload;
  const pieceChars = maxCharactersFor(Math.floor(p.split.maxTokens * (1 - p.split.margin)));
  const tokens = (chars: number): string => estimateModelTokens(' '.repeat(chars)).toLocaleString('en-US');
  const texts =
    p.source !== 'generated'
      ? 'a text of our own'
      : p.lengths === undefined
        ? `a synthetic clinical note with made-up PHI (no real patient data; notes of ${p.minChars.toLocaleString('en-US')}–${p.maxChars.toLocaleString('en-US')} characters, about ${tokens(p.minChars)}–${tokens(p.maxChars)} model tokens)`
        : 'a synthetic clinical note with made-up PHI (no real patient data; notes of mixed lengths)';
  const cap = `no request's text is over ${pieceChars.toLocaleString('en-US')} characters (about ${tokens(pieceChars)} model tokens; the documented limit is ${IDENTIFICATION_LIMITS.maxTextTokens.toLocaleString('en-US')})`;
  const retry =
    s.on429.policy === 'record'
      ? 'a 429 is recorded, not retried'
      : `a 429 is retried after its Retry-After (else exponential back-off up to ${formatDuration(s.on429.maxDelayMs)}), ${s.on429.maxAttempts} attempts at most`;
  return [
    s.mode === 'deid'
      ? `Each document: ${texts}, split into pieces so that ${cap}; each piece is one identification request (${s.deid.concurrency} at a time), then the whole document goes to obfuscation in one call.`
      : `Each request: one identification call whose text is ${texts}; longer notes are split before sending, so ${cap}.`,
    `Every request carries an x-loadproof-seq header (its number in the test) and x-loadproof-attempt, to find it in your logs.`,
    `Client timeout ${formatDuration(s.timeoutMs)}; ${retry}. ${tokenCallsText(processes)}`,
  ];
}
