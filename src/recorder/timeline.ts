/**
 * The timeline: per window of model time (by intended send time), only what the summary's timeline
 * and the charts read — counts by outcome, the latency and the 429s' round trips (latency-definition.ts), send
 * lag — stored by column. A 24-hour soak at
 * 10 s windows has 8,640 windows; as one object each (an outcomes object, a status Map and two
 * histograms) they held about 640 B apiece and made the soak's peak RSS grow with its length.
 * Here a window costs 48 B of counts plus two small arrays of the latency buckets it holds.
 */
import { COUNTED_OUTCOMES, type CountedOutcome, SENT_OUTCOMES } from '../core/index.js';
import type { RecordableEvent } from './event.js';
import { recordSparse, type SparseBuckets, SparseMsHistogram } from './histogram.js';
import { latencyShare } from './latency-definition.js';

/** One window, as read (made on each call: the timeline keeps columns, not windows). */
interface TimelineWindow {
  readonly outcomes: Record<CountedOutcome, number>;
  /** Requests put on the wire (at least one attempt). */
  readonly sent: number;
  readonly dropped: number;
  /** The latency (latency-definition.ts), as Slice.latencyExcl429. */
  readonly latencyExcl429: SparseMsHistogram;
  /** The round trips of the requests answered 429 at once, as Slice.latency429. */
  readonly latency429: SparseMsHistogram;
  /** Send lag (fired − intended) of every request put on the wire, as Slice.sendLag. */
  readonly sendLag: SparseMsHistogram;
}

const OUTCOMES = COUNTED_OUTCOMES.length;
const OUTCOME_INDEX = Object.fromEntries(COUNTED_OUTCOMES.map((o, i) => [o, i])) as Record<CountedOutcome, number>;

export class Timeline {
  /** Counts by outcome: window i's count of COUNTED_OUTCOMES[j] at i × OUTCOMES + j. Grows by doubling. */
  private counts = new Uint32Array(16 * OUTCOMES);
  /** Per window, its latency buckets (undefined while it has none). */
  private readonly latencyExcl429: (SparseBuckets | undefined)[] = [];
  private readonly latency429: (SparseBuckets | undefined)[] = [];
  private readonly sendLag: (SparseBuckets | undefined)[] = [];

  constructor(readonly windowMs: number) {
    if (!(windowMs > 0)) throw new RangeError(`a timeline window must last more than 0 ms, got ${windowMs}`);
  }

  /** Windows from the run start up to the last one that holds an event. */
  get length(): number {
    return this.sendLag.length;
  }

  /** The same rules as Slice.add, for the fields a window keeps. */
  add(event: RecordableEvent): void {
    const i = Math.floor(event.intendedAtMs / this.windowMs);
    if (!(i >= 0)) throw new RangeError(`an event intended at ${event.intendedAtMs} ms lies before the run start`);
    this.reach(i);
    this.counts[i * OUTCOMES + OUTCOME_INDEX[event.outcome]]!++;
    const share = latencyShare(event);
    if (share.kind === 'latency') this.latencyExcl429[i] = recordSparse(this.latencyExcl429[i], share.latencyMs);
    if (share.kind === 'http429') this.latency429[i] = recordSparse(this.latency429[i], share.latencyMs);
    if (event.outcome === 'dropped' || event.outcome === 'unsent' || event.firedAtMs === undefined) return;
    this.sendLag[i] = recordSparse(this.sendLag[i], event.firedAtMs - (event.readyAtMs ?? event.intendedAtMs));
  }

  /** Window i (0 ≤ i < length). */
  window(i: number): TimelineWindow {
    if (!(Number.isInteger(i) && i >= 0 && i < this.length))
      throw new RangeError(`window ${i} outside 0–${this.length - 1}`);
    const outcomes = Object.fromEntries(COUNTED_OUTCOMES.map((o, j) => [o, this.counts[i * OUTCOMES + j]!])) as Record<
      CountedOutcome,
      number
    >;
    return {
      outcomes,
      sent: SENT_OUTCOMES.reduce((sum, o) => sum + outcomes[o], 0),
      dropped: outcomes.dropped,
      latencyExcl429: new SparseMsHistogram(this.latencyExcl429[i]),
      latency429: new SparseMsHistogram(this.latency429[i]),
      sendLag: new SparseMsHistogram(this.sendLag[i]),
    };
  }

  /** Every window, in order. */
  *windows(): IterableIterator<TimelineWindow> {
    for (let i = 0; i < this.length; i++) yield this.window(i);
  }

  /** Makes windows 0–i exist (empty ones in between: a pause in the load is part of the timeline). */
  private reach(i: number): void {
    while (this.sendLag.length <= i) {
      this.latencyExcl429.push(undefined);
      this.latency429.push(undefined);
      this.sendLag.push(undefined);
    }
    if (this.counts.length < (i + 1) * OUTCOMES) {
      const grown = new Uint32Array(Math.max(2 * this.counts.length, (i + 1) * OUTCOMES));
      grown.set(this.counts);
      this.counts = grown;
    }
  }
}
