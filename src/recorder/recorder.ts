/**
 * Turns RequestEvents into numbers: per phase, per time window (by intended send time: the load
 * offered then) and overall — histograms of the latency (latency-definition.ts), of the 429s' own
 * round trips, of 2xx only, service time (actual last send → end), send lag (fired − intended) and
 * Retry-After values; counters by outcome and by HTTP status. Every event lands in exactly one phase and one
 * window, so per phase: sent = Σ outcomes, fired = sent + dropped. A slice that the verdict judges
 * covers a span of model time and also keeps what it judges per time block of that span, because
 * latencies are correlated in time and the confidence interval needs to see how (judge/quantile-interval.ts).
 */
import { COUNTED_OUTCOMES, type CountedOutcome, SENT_OUTCOMES } from '../core/index.js';
import { AttemptLog } from './attempts.js';
import { FAILED_OUTCOMES, type RecordableEvent, type RecordedTry } from './event.js';
import { MsHistogram } from './histogram.js';
import { type LatencyShare, latencyShare } from './latency-definition.js';
import { Timeline } from './timeline.js';

/** The model time a judged slice covers, by intended send time: [fromMs, toMs), ms from the run start. */
export interface SliceSpan {
  readonly fromMs: number;
  readonly toMs: number;
}

/**
 * Time blocks per judged slice: equal spans of its model time. Few and long, so that latencies
 * decorrelate within a block (45 s of a 5-minute phase); the interval's Student t has b − 1 = 5
 * degrees of freedom. Measured with `npm run bench:coverage`: 8 blocks or more let the interval's
 * coverage fall under 93 % on the simulated `degraded` fleet at 200 rpm.
 */
export const TIME_BLOCKS = 6;

/** Histograms and counters of one slice of the run (a phase, a window, or all of it). */
export class Slice {
  readonly latency2xx = MsHistogram.create();
  /**
   * The latency (latency-definition.ts): every request except those answered 429 at once, and every request dropped or
   * left unanswered at UNANSWERED_MS. What the verdict judges and every report shows.
   */
  readonly latencyExcl429 = MsHistogram.create();
  /** The round trips of the requests answered 429 at once, left out of the latency: shown apart, never mixed in. */
  readonly latency429 = MsHistogram.create();
  /** Service time of the same requests as the latency: what a latency check falls back on when the generator lags. */
  readonly serviceExcl429 = MsHistogram.create();
  readonly sendLag = MsHistogram.create();
  /** Retry-After values received, recorded as ms (seconds × 1000). */
  readonly retryAfter = MsHistogram.create();
  readonly outcomes: Record<CountedOutcome, number> = Object.fromEntries(COUNTED_OUTCOMES.map((o) => [o, 0])) as Record<
    CountedOutcome,
    number
  >;
  readonly status: Record<string, number> = {};
  attempts = 0;
  /**
   * 429 answers (any attempt) without a Retry-After in whole seconds, which the spec requires on every 429; from events
   * written before tries were recorded, only the final attempt's.
   */
  http429WithoutRetryAfter = 0;
  /**
   * Requests dropped, left unanswered or lost to a stale connection: in latencyExcl429 and serviceExcl429 at
   * UNANSWERED_MS.
   */
  unanswered = 0;
  /**
   * Model ms the answered requests held their client slot beyond their judged latency, in all, and how many: at time
   * scale k the wall overheads (and a time-scaled mock's lag window) that latency counts once or not at all hold the
   * slot k times over. 0 at k = 1, where latency is the raw time.
   */
  heldBeyondLatencyMs = 0;
  heldBeyondLatencyCount = 0;
  /**
   * The same answered requests' service times, in all (model ms: from the last attempt's send, or the embedded mock's
   * own account): the slots the service's own times need. Not their latency, which counts the generator's lateness
   * before the send, when no slot is held.
   */
  answeredServiceMs = 0;
  /** `latencyExcl429` per time block of the span (none without a span). */
  readonly latencyExcl429Blocks: readonly MsHistogram[];
  /** `serviceExcl429` per time block of the span (none without a span). */
  readonly serviceExcl429Blocks: readonly MsHistogram[];

  /** `span`: the model time this slice covers, for a slice the verdict judges; windows and totals need none. */
  constructor(readonly span?: SliceSpan) {
    if (
      span !== undefined &&
      !(Number.isFinite(span.fromMs) && Number.isFinite(span.toMs) && span.toMs > span.fromMs)
    ) {
      throw new RangeError(`a slice's span must be finite and not empty, got ${span.fromMs}–${span.toMs} ms`);
    }
    const blocks = span === undefined ? 0 : TIME_BLOCKS;
    this.latencyExcl429Blocks = Array.from({ length: blocks }, () => MsHistogram.create());
    this.serviceExcl429Blocks = Array.from({ length: blocks }, () => MsHistogram.create());
  }

  /** `share`: the event's latencyShare, when the caller has it (the Recorder adds each event to several slices). */
  add(event: RecordableEvent, share: LatencyShare = latencyShare(event)): void {
    this.outcomes[event.outcome]++;
    if (event.outcome === 'dropped' || event.outcome === 'abandoned' || event.outcome === 'stale_connection')
      this.unanswered++;
    if (share.kind === 'latency') this.recordJudged(event.intendedAtMs, share.latencyMs, share.serviceMs);
    if (share.kind === 'http429') this.latency429.recordMs(share.latencyMs);
    if (event.outcome === 'ok' && share.kind === 'latency') this.latency2xx.recordMs(share.latencyMs);
    // Dropped and unsent requests never left: no send lag.
    if (event.outcome === 'dropped' || event.outcome === 'unsent' || event.firedAtMs === undefined) return;
    this.sendLag.recordMs(event.firedAtMs - (event.readyAtMs ?? event.intendedAtMs));
    const r = event.result;
    if (r === undefined) return;
    this.attempts += r.attempts;
    if (event.outcome === 'abandoned' || event.outcome === 'stale_connection') return;
    if (share.kind === 'latency' && r.status !== undefined) {
      // From its send: the slot is taken then; the generator's lateness before it holds no slot.
      this.heldBeyondLatencyMs += Math.max(0, r.endAtMs - event.firedAtMs - share.latencyMs);
      this.heldBeyondLatencyCount++;
      this.answeredServiceMs += share.serviceMs;
    }
    if (r.status !== undefined) this.status[r.status] = (this.status[r.status] ?? 0) + 1;
    for (const s of r.retryAfterS) this.retryAfter.recordMs(s * 1000);
    // The client keeps a 429's Retry-After only when it had one: the 429s beyond them had none.
    const answers429 = r.tries === undefined ? (r.status === 429 ? 1 : 0) : count429(r.tries);
    this.http429WithoutRetryAfter += Math.max(0, answers429 - r.retryAfterS.length);
  }

  /** Every value the verdict judges goes through here, so that the blocks always hold what the whole does. */
  private recordJudged(intendedAtMs: number, latencyMs: number, serviceMs: number): void {
    this.latencyExcl429.recordMs(latencyMs);
    this.serviceExcl429.recordMs(serviceMs);
    if (this.span === undefined) return;
    const { fromMs, toMs } = this.span;
    // By intended time; one outside the span (it should not happen) counts in the nearest block.
    const block = Math.min(
      TIME_BLOCKS - 1,
      Math.max(0, Math.floor(((intendedAtMs - fromMs) / (toMs - fromMs)) * TIME_BLOCKS)),
    );
    this.latencyExcl429Blocks[block]!.recordMs(latencyMs);
    this.serviceExcl429Blocks[block]!.recordMs(serviceMs);
  }

  /** Requests put on the wire (at least one attempt). */
  get sent(): number {
    return SENT_OUTCOMES.reduce((sum, o) => sum + this.outcomes[o], 0);
  }

  /** Requests that failed (FAILED_OUTCOMES). */
  get failed(): number {
    return FAILED_OUTCOMES.reduce((sum, o) => sum + this.outcomes[o], 0);
  }

  get dropped(): number {
    return this.outcomes.dropped;
  }

  get unsent(): number {
    return this.outcomes.unsent;
  }
}

/** The attempts answered 429. */
function count429(tries: readonly RecordedTry[]): number {
  let n = 0;
  for (const t of tries) if (t.status === 429) n++;
  return n;
}

/** Where a phase's judged slices lie in model time (ms from the run start). */
export interface PhaseLayout {
  /** The phase's steady state: from its start + warm-up to its end. */
  readonly steady: SliceSpan;
  /**
   * The steady part of each of its load bands, in time order (one for a constant rate; a ramp's
   * arrivals are judged against the band of the rate at their time). Contiguous: a band ends where
   * the next starts; an arrival at an edge goes with the band it starts. Empty when inside the warm-up.
   */
  readonly bands: readonly (SliceSpan & { readonly endInclusive: boolean })[];
}

export class Recorder {
  readonly phases: Slice[];
  /** Per phase, the requests intended after its warm-up: what its thresholds judge, with its time blocks. */
  readonly steady: Slice[];
  /** Per phase and load band, the steady requests whose intended time falls in the band: what its p95 target judges. */
  readonly steadyBands: Slice[][];
  /** Every attempt, compact: what the rate-limit envelope's judge replays after the run. */
  readonly attempts = new AttemptLog();
  readonly overall = new Slice();
  /** Every phase's requests intended after its warm-up: the whole run's steady state, as the tables' overall row. */
  readonly steadyOverall = new Slice();
  /** The timeline: one window per `windowMs` of model time, by intended send time. */
  readonly timeline: Timeline;

  constructor(
    private readonly layout: readonly PhaseLayout[],
    readonly windowMs: number,
  ) {
    this.timeline = new Timeline(windowMs);
    this.phases = layout.map(() => new Slice());
    this.steady = layout.map((p) => new Slice(p.steady));
    this.steadyBands = layout.map((p) =>
      p.bands.map((span) => new Slice(span.toMs > span.fromMs ? { fromMs: span.fromMs, toMs: span.toMs } : undefined)),
    );
  }

  /** Records one event. */
  record(event: RecordableEvent): void {
    const phase = this.phases[event.phase];
    if (phase === undefined)
      throw new RangeError(`event for phase ${event.phase}, but the plan has ${this.phases.length}`);
    // Once per event, not once per slice it counts in.
    const share = latencyShare(event);
    phase.add(event, share);
    const layout = this.layout[event.phase]!;
    if (event.intendedAtMs >= layout.steady.fromMs) {
      this.steady[event.phase]!.add(event, share);
      this.steadyOverall.add(event, share);
      const bands = layout.bands;
      let band = 0;
      // The same rule as the plan's sliceIndexAt: an arrival on an edge goes to the lower band.
      while (
        band < bands.length - 1 &&
        (event.intendedAtMs > bands[band]!.toMs ||
          (event.intendedAtMs === bands[band]!.toMs && !bands[band]!.endInclusive))
      )
        band++;
      this.steadyBands[event.phase]![band]?.add(event, share);
    }
    this.attempts.add(event);
    this.overall.add(event, share);
    this.timeline.add(event);
  }
}
