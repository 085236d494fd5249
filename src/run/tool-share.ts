/**
 * Each request's bound on the tool's share of its latency (model ms, as latency counts it): what the run's own thread
 * and the embedded mock's could have added to it, read from their stall meters (src/core/stall-meter.ts) over the
 * request's life, from when it was due to its answer. The judge takes it off that request alone
 * (judge/percentile-check.ts): one stall of the mock holds the requests in the service at that moment, not every
 * request of the phase.
 *
 *   bound = send lag + the run's stalls + grain + the mock's stalls + grain      (wall ms: latency counts them once)
 *         + ((send lag − W)⁺ + Σ each mock stall's part past W) × k             (model time the model lost)
 *
 * W is the mock's lag window (wall ms): a request that reaches it within W of its due time enters the model at that
 * time, and a mock that stands still for less than W leaves the model's course as it was; beyond it, a late arrival
 * enters the model late, and its queue grows in model time, k times the wall delay. The mock's meter counts each
 * stall's part past W itself. Every stall in the life counts in full, although only one can have held the request's
 * entry: that slack is what covers a stall just before it that left a bunch of late arrivals in the service with it.
 */
import {
  monotonicMs,
  STALL_GRAIN_MS,
  type StallCells,
  stalledBeyondWindowMs,
  stalledMs,
  type TimeScale,
} from '../core/index.js';

/** Samples of the stall totals kept: one per 1/32 of the timeout, so they reach four timeouts back. */
const SAMPLES = 128;
const PER_TIMEOUT = 32;

/** What a request's bound is read from (model ms from the run's t = 0, as its event says). */
interface ToolShareEvent {
  readonly intendedAtMs: number;
  readonly readyAtMs?: number;
  readonly firedAtMs?: number;
}

interface ToolShareOptions {
  readonly scale: TimeScale;
  /** The scenario's timeout (model ms): no answer comes much later than that after its request was due. */
  readonly timeoutMs: number;
  /** The run's clock (model ms). */
  readonly nowMs: () => number;
  /** The run's thread's stall meter. */
  readonly own: StallCells;
  /** The embedded mock's thread's stall meter, when it is the target. */
  readonly mock?: StallCells | undefined;
  /** The monotonic clock the meters tick on (wall ms); injected by tests. */
  readonly wallNowMs?: () => number;
}

export class ToolShare {
  /** Ring of samples in time order: when (model ms from t = 0) and both stall totals then (wall ms). */
  private readonly atMs = new Float64Array(SAMPLES);
  private readonly own = new Float64Array(SAMPLES);
  private readonly mock = new Float64Array(SAMPLES);
  private readonly mockBeyond = new Float64Array(SAMPLES);
  private count = 0;
  /** The mock's lag window (wall ms); 0 until it says it (none: every delay counts k times). */
  private windowWallMs = 0;
  private next = 0;
  private startMs = 0;
  /** The totals when the bounds began to be kept: a lower bound of the totals at any later time. */
  private readonly baseOwn: number;
  private readonly baseMock: number;
  private readonly baseMockBeyond: number;

  constructor(private readonly o: ToolShareOptions) {
    const now = (o.wallNowMs ?? monotonicMs)();
    this.baseOwn = stalledMs(o.own, now);
    this.baseMock = o.mock === undefined ? 0 : stalledMs(o.mock, now);
    this.baseMockBeyond = o.mock === undefined ? 0 : stalledBeyondWindowMs(o.mock, now);
  }

  /** The run's t = 0 on its clock (the engine's start). */
  start(startMs: number): void {
    this.startMs = startMs;
  }

  /** The embedded mock's lag window (wall ms), as it says with its lag. */
  setWindow(windowWallMs: number): void {
    this.windowWallMs = windowWallMs;
  }

  /** The bound of a request answered now, or undefined for one never sent (no latency of the tool's to bound). */
  boundMs(e: ToolShareEvent): number | undefined {
    if (e.firedAtMs === undefined) return undefined;
    const o = this.o;
    // One reading of the clock for both meters: numbers only, nothing allocated but the clock's own reading.
    const wallNow = (o.wallNowMs ?? monotonicMs)();
    const own = stalledMs(o.own, wallNow);
    const mock = o.mock === undefined ? 0 : stalledMs(o.mock, wallNow);
    const mockBeyond = o.mock === undefined ? 0 : stalledBeyondWindowMs(o.mock, wallNow);
    this.sample(o.nowMs() - this.startMs, own, mock, mockBeyond);
    const dueMs = e.readyAtMs ?? e.intendedAtMs;
    const i = this.sampleAtOrBefore(dueMs);
    const ownWallMs = own - (i < 0 ? this.baseOwn : this.own[i]!);
    const sendLagWallMs = o.scale.toWallMs(Math.max(0, e.firedAtMs - dueMs));
    const w = this.windowWallMs;
    const lostWallMs = Math.max(0, sendLagWallMs - w);
    const onceMs = sendLagWallMs + ownWallMs + STALL_GRAIN_MS;
    if (o.mock === undefined) return onceMs + o.scale.toModelMs(lostWallMs);
    const mockWallMs = mock - (i < 0 ? this.baseMock : this.mock[i]!);
    const mockLostWallMs = mockBeyond - (i < 0 ? this.baseMockBeyond : this.mockBeyond[i]!);
    return onceMs + mockWallMs + STALL_GRAIN_MS + o.scale.toModelMs(lostWallMs + mockLostWallMs);
  }

  /** Keeps the totals at `atMs`, at most one sample per 1/32 of the timeout. */
  private sample(atMs: number, own: number, mock: number, mockBeyond: number): void {
    if (this.count > 0 && atMs - this.atMs[(this.next + SAMPLES - 1) % SAMPLES]! < this.o.timeoutMs / PER_TIMEOUT)
      return;
    this.atMs[this.next] = atMs;
    this.own[this.next] = own;
    this.mock[this.next] = mock;
    this.mockBeyond[this.next] = mockBeyond;
    this.next = (this.next + 1) % SAMPLES;
    this.count = Math.min(SAMPLES, this.count + 1);
  }

  /** The slot of the latest sample taken at or before `atMs`, or −1 when none is kept. */
  private sampleAtOrBefore(atMs: number): number {
    const first = (this.next + SAMPLES - this.count) % SAMPLES;
    // Binary search over the samples in time order: the last one at or before atMs.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.atMs[(first + mid) % SAMPLES]! <= atMs) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? -1 : (first + lo - 1) % SAMPLES;
  }
}
