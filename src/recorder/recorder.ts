/**
 * Turns RequestEvents into numbers: per phase, per time window (by intended send time: the load
 * offered then) and overall — histograms of latency (intended send → end of answer), latency of
 * 2xx only, service time (actual last send → end), send lag (fired − intended) and Retry-After
 * values; counters by outcome and by HTTP status. Every event lands in exactly one phase and one
 * window, so per phase: sent = Σ outcomes, fired = sent + dropped.
 */
import { AttemptLog } from './attempts.js';
import { MsHistogram } from './histogram.js';

/** Outcomes of requests that were sent (the client's Outcome). */
export const SENT_OUTCOMES = ['ok', 'http_429', 'http_504', 'http_other', 'timeout', 'reset', 'refused', 'malformed', 'error', 'abandoned'] as const;
/**
 * The outcome classes counted: those of requests sent, plus `dropped` (the engine found maxInFlight
 * requests outstanding) and `unsent` (never put on the wire: the run stopped first). Per slice,
 * planned = sent + dropped + unsent.
 */
export const COUNTED_OUTCOMES = [...SENT_OUTCOMES, 'dropped', 'unsent'] as const;
export type CountedOutcome = (typeof COUNTED_OUTCOMES)[number];

/** Outcomes without a usable HTTP answer: the "errors" of reports and of rate(errors). */
export const ERROR_OUTCOMES = ['timeout', 'reset', 'refused', 'malformed', 'error', 'abandoned'] as const satisfies readonly CountedOutcome[];

/** What the recorder needs of an event (the engine's RequestEvent has it). */
export interface RecordableEvent {
  readonly phase: number;
  readonly intendedAtMs: number;
  readonly outcome: CountedOutcome;
  readonly firedAtMs?: number;
  readonly result?: {
    readonly status?: number;
    readonly attempts: number;
    readonly lastSentAtMs: number;
    readonly endAtMs: number;
    readonly retryAfterS: readonly number[];
    /** Each attempt's send and answer times (model ms) and status; absent in events written before they were recorded. */
    readonly tries?: readonly { readonly sentAtMs: number; readonly endAtMs: number; readonly status?: number }[];
  };
}

/** Histograms and counters of one slice of the run (a phase, a window, or all of it). */
export class Slice {
  readonly latency = MsHistogram.create();
  readonly latency2xx = MsHistogram.create();
  /**
   * Latency of every answer except 429s: what the verdict judges. A 429 comes back fast; counting it
   * would flatter a rate-limited service (429s are judged by their own check).
   */
  readonly latencyExcl429 = MsHistogram.create();
  readonly service = MsHistogram.create();
  /** Service time of answers other than 429: what a latency check falls back on when the generator was late. */
  readonly serviceExcl429 = MsHistogram.create();
  readonly sendLag = MsHistogram.create();
  /** Retry-After values received, recorded as ms (seconds × 1000). */
  readonly retryAfter = MsHistogram.create();
  readonly outcomes: Record<CountedOutcome, number> = Object.fromEntries(COUNTED_OUTCOMES.map((o) => [o, 0])) as Record<CountedOutcome, number>;
  readonly status: Record<string, number> = {};
  attempts = 0;

  add(event: RecordableEvent): void {
    this.outcomes[event.outcome]++;
    // Dropped and unsent requests never left: no send lag, no latency.
    if (event.outcome === 'dropped' || event.outcome === 'unsent' || event.firedAtMs === undefined) return;
    this.sendLag.recordMs(event.firedAtMs - event.intendedAtMs);
    const r = event.result;
    if (r === undefined) return;
    this.attempts += r.attempts;
    // Cancelled unanswered: there is no latency to record, only the outcome.
    if (event.outcome === 'abandoned') return;
    this.latency.recordMs(r.endAtMs - event.intendedAtMs);
    this.service.recordMs(r.endAtMs - r.lastSentAtMs);
    if (event.outcome === 'ok') this.latency2xx.recordMs(r.endAtMs - event.intendedAtMs);
    if (event.outcome !== 'http_429') {
      this.latencyExcl429.recordMs(r.endAtMs - event.intendedAtMs);
      this.serviceExcl429.recordMs(r.endAtMs - r.lastSentAtMs);
    }
    if (r.status !== undefined) this.status[r.status] = (this.status[r.status] ?? 0) + 1;
    for (const s of r.retryAfterS) this.retryAfter.recordMs(s * 1000);
  }

  /** Requests put on the wire (at least one attempt). */
  get sent(): number {
    return SENT_OUTCOMES.reduce((sum, o) => sum + this.outcomes[o], 0);
  }

  get dropped(): number {
    return this.outcomes.dropped;
  }

  get unsent(): number {
    return this.outcomes.unsent;
  }
}

export class Recorder {
  readonly phases: Slice[];
  /** Per phase, the requests intended after its warm-up: what its verdict judges. */
  readonly steady: Slice[];
  /** Every attempt, compact: what the rate-limit envelope's judge replays after the run. */
  readonly attempts = new AttemptLog();
  readonly overall = new Slice();
  readonly windows: Slice[] = [];
  /** Token-call durations (model ms), apart from the load. */
  readonly tokenLatency = MsHistogram.create();

  /** `steadyFromMs[i]`: when phase i's steady state starts (its start + warm-up, model ms from the run start). */
  constructor(
    private readonly steadyFromMs: readonly number[],
    readonly windowMs: number,
  ) {
    this.phases = steadyFromMs.map(() => new Slice());
    this.steady = steadyFromMs.map(() => new Slice());
  }

  /** Records one event. */
  record(event: RecordableEvent): void {
    const phase = this.phases[event.phase];
    if (phase === undefined) throw new RangeError(`event for phase ${event.phase}, but the plan has ${this.phases.length}`);
    phase.add(event);
    if (event.intendedAtMs >= this.steadyFromMs[event.phase]!) this.steady[event.phase]!.add(event);
    this.attempts.add(event);
    this.overall.add(event);
    const index = Math.floor(event.intendedAtMs / this.windowMs);
    while (this.windows.length <= index) this.windows.push(new Slice());
    this.windows[index]!.add(event);
  }
}
