/**
 * events.ndjson, the run's source of truth: one line per planned request, in model ms from the run
 * start (to the microsecond). Like Vegeta's results stream, everything the verdict needs of a request
 * is on its line, so a finished run can be judged again from its folder. The live run records each
 * event into its Recorder from the very record it writes, so the live verdict and a re-judged one
 * see the same numbers.
 */
import { COUNTED_OUTCOMES, type CountedOutcome } from '../core/index.js';
import type { RecordableEvent, RecordedTry } from '../recorder/index.js';
import { ERROR_CODE_PATTERN } from '../spec/index.js';
import { accountLatency } from './accounting.js';
import { type ErrorRecord, errorRecordProblem } from './error-sample.js';

/** One line of events.ndjson. */
export interface EventRecord {
  /** 0-based position in the plan. */
  readonly seq: number;
  /** The phase's name. */
  readonly phase: string;
  readonly intendedAtMs: number;
  /**
   * When its first attempt was sent (headers written), or handed to the client if none was; null when dropped or never
   * fired.
   */
  readonly firedAtMs: number | null;
  /** The last attempt's send; null when no attempt was sent. */
  readonly lastSentAtMs: number | null;
  readonly endAtMs: number | null;
  /**
   * The latency in model ms, as judged: endAtMs − intendedAtMs, except that at time scale k > 1 the
   * wall-clock overheads around the tries' `serviceMs` count once, not k times (src/judge/accounting.ts);
   * null without an answer (dropped, unsent, abandoned, stale_connection).
   */
  readonly latencyMs: number | null;
  readonly outcome: CountedOutcome;
  readonly status: number | null;
  readonly attempts: number;
  readonly retryAfterS: readonly number[];
  /**
   * Each attempt: its send, its end and its status (null without an answer); what the rate-limit envelope's judge
   * replays.
   */
  readonly tries: readonly TryRecord[];
  /**
   * Mode deid: a piece held back until its document's earlier pieces answered, and when it was free to go (latency and
   * send lag run from it); absent otherwise.
   */
  readonly readyAtMs?: number;
  /** A failed request (not 2xx, not 429): its error code and group, and on its group's first line a sample. */
  readonly error?: ErrorRecord;
}

/** An attempt as its line holds it: the recorder's, with its status always written (null without an answer). */
export interface TryRecord extends RecordedTry {
  readonly status: number | null;
}

/**
 * What a request's fate is made of: the Recorder's event with its position in the plan (the engine's RequestEvent has
 * it).
 */
type EventSource = Omit<RecordableEvent, 'phase'> & { readonly seq: number };

const micro = (ms: number): number => Math.round(ms * 1000) / 1000;
const microOrNull = (ms: number | undefined): number | null => (ms === undefined ? null : micro(ms));

/**
 * `timeScale`: the run's k, for the latency as judged (see {@link EventRecord.latencyMs}); `error`: a failed request's
 * (src/judge/error-sample.ts).
 */
export function toEventRecord(phaseName: string, e: EventSource, timeScale: number, error?: ErrorRecord): EventRecord {
  const r = e.result;
  const intendedAtMs = micro(e.intendedAtMs);
  const readyAtMs = e.readyAtMs === undefined ? undefined : micro(e.readyAtMs);
  const endAtMs = microOrNull(r?.endAtMs);
  const lastSentAtMs = microOrNull(r?.lastSentAtMs);
  // Built field by field, not with spreads of optional parts: this runs once per request, where every copy a spread
  // makes counts.
  const tries: TryRecord[] = [];
  for (const t of r?.tries ?? []) {
    const tr: {
      sentAtMs: number;
      endAtMs: number;
      status: number | null;
      serviceMs?: number;
      lagMs?: number;
      waitMs?: number;
      errorCode?: string;
    } = { sentAtMs: micro(t.sentAtMs), endAtMs: micro(t.endAtMs), status: t.status ?? null };
    if (t.serviceMs !== undefined) tr.serviceMs = micro(t.serviceMs);
    if (t.lagMs !== undefined) tr.lagMs = micro(t.lagMs);
    if (t.waitMs !== undefined) tr.waitMs = micro(t.waitMs);
    if (t.errorCode !== undefined) tr.errorCode = t.errorCode;
    tries.push(tr);
  }
  const record: EventRecord & { readyAtMs?: number; error?: ErrorRecord } = {
    seq: e.seq,
    phase: phaseName,
    intendedAtMs,
    firedAtMs: microOrNull(e.firedAtMs),
    lastSentAtMs,
    endAtMs,
    // From the rounded times, so the line agrees with itself and with what is recorded.
    latencyMs:
      endAtMs === null || lastSentAtMs === null || e.outcome === 'abandoned' || e.outcome === 'stale_connection'
        ? null
        : micro(
            accountLatency({ intendedAtMs: readyAtMs ?? intendedAtMs, lastSentAtMs, endAtMs, tries }, timeScale)
              .latencyMs,
          ),
    outcome: e.outcome,
    status: r?.status ?? null,
    attempts: r?.attempts ?? 0,
    retryAfterS: r?.retryAfterS ?? [],
    tries,
  };
  // Last, as formatEventLine writes it.
  if (readyAtMs !== undefined) record.readyAtMs = readyAtMs;
  if (error !== undefined) record.error = error;
  return record;
}

/** A number as JSON.stringify writes it (a non-finite one is null). */
const jsonNumber = (n: number): string => (Number.isFinite(n) ? `${n}` : 'null');
const jsonNumberOrNull = (n: number | null): string => (n === null ? 'null' : jsonNumber(n));

/**
 * The record's line of events.ndjson: exactly `JSON.stringify(record)` + a newline (the same keys in the
 * same order, the same numbers), written by hand because it runs once per request and JSON.stringify of
 * a whole record was about a tenth of a request's CPU. `phaseJson` is JSON.stringify of
 * the record's phase name, made once per phase.
 */
export function formatEventLine(record: EventRecord, phaseJson: string): string {
  let retryAfter = '';
  for (let i = 0; i < record.retryAfterS.length; i++)
    retryAfter += i === 0 ? jsonNumber(record.retryAfterS[i]!) : `,${jsonNumber(record.retryAfterS[i]!)}`;
  let tries = '';
  for (let i = 0; i < record.tries.length; i++) {
    const t = record.tries[i]!;
    let one = `{"sentAtMs":${jsonNumber(t.sentAtMs)},"endAtMs":${jsonNumber(t.endAtMs)},"status":${jsonNumberOrNull(t.status)}`;
    if (t.serviceMs !== undefined) one += `,"serviceMs":${jsonNumber(t.serviceMs)}`;
    if (t.lagMs !== undefined) one += `,"lagMs":${jsonNumber(t.lagMs)}`;
    if (t.waitMs !== undefined) one += `,"waitMs":${jsonNumber(t.waitMs)}`;
    // A short token (ERROR_CODE_PATTERN, checked by the client): a JSON string as it is.
    if (t.errorCode !== undefined) one += `,"errorCode":"${t.errorCode}"`;
    tries += i === 0 ? `${one}}` : `,${one}}`;
  }
  return (
    `{"seq":${jsonNumber(record.seq)},"phase":${phaseJson},"intendedAtMs":${jsonNumber(record.intendedAtMs)},"firedAtMs":${jsonNumberOrNull(record.firedAtMs)}` +
    `,"lastSentAtMs":${jsonNumberOrNull(record.lastSentAtMs)},"endAtMs":${jsonNumberOrNull(record.endAtMs)},"latencyMs":${jsonNumberOrNull(record.latencyMs)}` +
    `,"outcome":"${record.outcome}","status":${jsonNumberOrNull(record.status)},"attempts":${jsonNumber(record.attempts)},"retryAfterS":[${retryAfter}],"tries":[${tries}]` +
    `${record.readyAtMs === undefined ? '' : `,"readyAtMs":${jsonNumber(record.readyAtMs)}`}` +
    // Rare (failed requests only) and holds server text: JSON.stringify escapes it.
    `${record.error === undefined ? '' : `,"error":${JSON.stringify(record.error)}`}}\n`
  );
}

/**
 * The Recorder's view of a record; `phase` is the phase's index in the plan. Its latency and service
 * time are recomputed from the raw times and the tries (src/judge/accounting.ts) at the run's `timeScale`.
 * A TryRecord is the accounting's try as it is (it reads only its times), and its status of null
 * means none: the Recorder reads `status` only when it is a number.
 */
export function toRecordable(record: EventRecord, phase: number, timeScale: number): RecordableEvent {
  const event: {
    phase: number;
    intendedAtMs: number;
    readyAtMs?: number;
    outcome: CountedOutcome;
    firedAtMs?: number;
    result?: NonNullable<RecordableEvent['result']>;
  } = { phase, intendedAtMs: record.intendedAtMs, outcome: record.outcome };
  if (record.readyAtMs !== undefined) event.readyAtMs = record.readyAtMs;
  if (record.firedAtMs !== null) event.firedAtMs = record.firedAtMs;
  if (record.lastSentAtMs !== null && record.endAtMs !== null) {
    const accounted = accountLatency(
      {
        intendedAtMs: record.readyAtMs ?? record.intendedAtMs,
        lastSentAtMs: record.lastSentAtMs,
        endAtMs: record.endAtMs,
        tries: record.tries,
      },
      timeScale,
    );
    const result: {
      status?: number;
      attempts: number;
      lastSentAtMs: number;
      endAtMs: number;
      retryAfterS: readonly number[];
      tries: readonly TryRecord[];
      latencyMs: number;
      serviceMs: number;
    } = {
      attempts: record.attempts,
      lastSentAtMs: record.lastSentAtMs,
      endAtMs: record.endAtMs,
      retryAfterS: record.retryAfterS,
      // As they are (not copied per request): the Recorder reads a null status as none.
      tries: record.tries,
      latencyMs: accounted.latencyMs,
      serviceMs: accounted.serviceMs,
    };
    if (record.status !== null) result.status = record.status;
    event.result = result;
  }
  return event;
}

const OUTCOMES: ReadonlySet<string> = new Set(COUNTED_OUTCOMES);

/** Why a line is not an event record, or undefined when it is one. */
function problemOf(v: Record<string, unknown>): string | undefined {
  const finite = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
  const finiteOrNull = (x: unknown): boolean => x === null || finite(x);
  if (!Number.isSafeInteger(v.seq) || (v.seq as number) < 0) return 'seq: expected a whole number ≥ 0';
  if (typeof v.phase !== 'string') return 'phase: expected a phase name';
  if (!finite(v.intendedAtMs)) return 'intendedAtMs: expected a number';
  if (v.readyAtMs !== undefined && !(finite(v.readyAtMs) && (v.readyAtMs as number) >= (v.intendedAtMs as number)))
    return 'readyAtMs: expected a number not before intendedAtMs, or none';
  for (const key of ['firedAtMs', 'lastSentAtMs', 'endAtMs', 'latencyMs'] as const)
    if (!finiteOrNull(v[key])) return `${key}: expected a number or null`;
  // Time runs forward: an answer never ends before its request was due or sent, and no latency is negative.
  if (v.latencyMs !== null && (v.latencyMs as number) < 0)
    return `latencyMs: ${v.latencyMs as number}, expected a number ≥ 0 or null`;
  if (v.endAtMs !== null && (v.endAtMs as number) < (v.intendedAtMs as number))
    return `endAtMs: ${v.endAtMs as number}, expected a time not before intendedAtMs (${v.intendedAtMs as number})`;
  if (v.endAtMs !== null && v.lastSentAtMs !== null && (v.endAtMs as number) < (v.lastSentAtMs as number))
    return `endAtMs: ${v.endAtMs as number}, expected a time not before lastSentAtMs (${v.lastSentAtMs as number})`;
  if (typeof v.outcome !== 'string' || !OUTCOMES.has(v.outcome))
    return `outcome: expected one of ${COUNTED_OUTCOMES.join(', ')}`;
  if (v.status !== null && !Number.isSafeInteger(v.status)) return 'status: expected an HTTP status or null';
  if (!Number.isSafeInteger(v.attempts) || (v.attempts as number) < 0) return 'attempts: expected a whole number ≥ 0';
  if (!Array.isArray(v.retryAfterS) || !v.retryAfterS.every(finite)) return 'retryAfterS: expected a list of numbers';
  const absentOrAtLeast0 = (x: unknown): boolean => x === undefined || (finite(x) && (x as number) >= 0);
  const isTry = (t: unknown): boolean =>
    typeof t === 'object' &&
    t !== null &&
    finite((t as TryRecord).sentAtMs) &&
    finite((t as TryRecord).endAtMs) &&
    (t as TryRecord).endAtMs >= (t as TryRecord).sentAtMs &&
    ((t as TryRecord).status === null || Number.isSafeInteger((t as TryRecord).status)) &&
    absentOrAtLeast0((t as TryRecord).serviceMs) &&
    absentOrAtLeast0((t as TryRecord).lagMs) &&
    absentOrAtLeast0((t as TryRecord).waitMs) &&
    ((t as TryRecord).errorCode === undefined ||
      (typeof (t as TryRecord).errorCode === 'string' && ERROR_CODE_PATTERN.test((t as TryRecord).errorCode!)));
  if (!Array.isArray(v.tries) || !v.tries.every(isTry))
    return 'tries: expected a list of {sentAtMs, endAtMs, status, serviceMs?, lagMs?, waitMs?, errorCode?} (endAtMs not before sentAtMs; serviceMs, lagMs and waitMs ≥ 0, errorCode a token of 1–64 letters, digits or _.:-)';
  return errorRecordProblem(v.error);
}

/** Parses one line of events.ndjson; throws an Error naming what is wrong (the caller adds file and line). */
export function parseEventLine(line: string): EventRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new Error('not a JSON line');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
  const problem = problemOf(value as Record<string, unknown>);
  if (problem !== undefined) throw new Error(problem);
  return value as EventRecord;
}
