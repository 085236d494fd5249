/**
 * The mock's real clock (model time = k × wall time), with the model's timers kept in time order
 * and run at their own times. A native timer fires up to about a millisecond late (k ms of model
 * time), and the model must not inherit that: each timer's callback reads the time it was due, and
 * `runDue()` — called before a new arrival is taken — first runs every timer already due, in order.
 * So a slot whose service ended by the model's clock is free for the next arrival even when its
 * native timer has not fired yet, and what the model does does not depend on k. One native timer
 * is armed at a time, for the earliest pending timer; no busy waiting.
 *
 * At time scale k > 1 a request that reaches the mock w wall ms after it was due would enter the model
 * k·w model ms late: near saturation the queue drains meanwhile and the request reads a shorter wait
 * than at k = 1, where the same delay is w; and which of two close events comes first (an arrival, a
 * slot freeing) would depend on how busy the machine is. So the model runs `lagWallMs` of wall time
 * behind the real clock, and a client that says when a request was due (`arrival`) has it admitted at
 * its due time, in its place among the model's events, as long as the delay was under the lag (else
 * at the earliest time the model has not run yet, as without it): the model's course is then the same
 * at every k and on a busy machine. The delay itself is not lost: the answer leaves that much later
 * (`entryMs`, counted once), and its Server-Timing `svc` runs from the due time
 * (src/mock/routes/context.ts). The price: every answer leaves `lagMs()` of model time after its time,
 * which the mock says in Server-Timing (`lag`) so that the client counts it out.
 */
import { type CancelTimer, type Clock, ManualClock, monotonicMs, ScaledClock, TimeScale } from '../core/index.js';

/**
 * How far (wall ms) a time-scaled mock runs its model behind the real clock: more than a usual send lag plus loopback.
 */
export const MODEL_LAG_WALL_MS = 20;

export class ModelClock implements Clock {
  private readonly real: ScaledClock;
  /** The model's timers, in time order; it reads each timer's own time while its callback runs. */
  private readonly pending = new ManualClock(0);
  private running = false;
  private armedAtMs = Number.POSITIVE_INFINITY;
  private cancelArmed: CancelTimer | undefined;

  /** The processing lag in model ms. */
  private readonly lagModelMs: number;
  private readonly scale: TimeScale;

  constructor(
    /** k, from 1 to 1000. */
    readonly timeScale: number,
    /** Wall ms the model runs behind the real clock (0: none; it matters only at k > 1). */
    lagWallMs = 0,
  ) {
    this.scale = TimeScale.of(timeScale, 'timeScale');
    // Not keepAlive: the server keeps the process (or thread) alive; a pending model timer must not.
    this.real = new ScaledClock(timeScale);
    this.lagModelMs = this.scale.toModelMs(lagWallMs);
  }

  /**
   * Model time: inside a timer, the time it was due; outside, how far the model has run (the real time less the lag).
   */
  nowMs(): number {
    return this.running ? this.pending.nowMs() : this.frontierMs();
  }

  /** How long (model ms) each answer leaves after its model time: the processing lag. */
  lagMs(): number {
    return this.lagModelMs;
  }

  /**
   * A request due at `dueMonotonicMs` (wall, `monotonicMs()`), taken now: its due time in model time
   * (`dueAtMs`), and when it enters the model (`atMs`).
   * - In time (`late` false): it enters at its due time; its wall delay, counted once, is its `entryMs`
   *   (the answer leaves that much after its model time, and `svc` counts it), and its answer leaves the
   *   lag after its model time (Server-Timing `lag`, which the client counts out).
   * - Later than the lag (`late`): the model has run past its due time, so it enters at the time the model
   *   has run to, as a request that says nothing would. Its answer then leaves at its model time as seen
   *   from its real arrival: no entry, no lag; the client's own measurement holds its delay, once.
   * A due time in the future (another clock) enters now.
   */
  arrival(dueMonotonicMs: number): {
    readonly dueAtMs: number;
    readonly atMs: number;
    readonly entryMs: number;
    readonly late: boolean;
  } {
    const realMs = this.real.nowMs();
    const delayWallMs = Math.min(Math.max(0, monotonicMs() - dueMonotonicMs), this.scale.toWallMs(realMs));
    const dueAtMs = realMs - this.scale.toModelMs(delayWallMs);
    const frontierMs = this.nowMs();
    if (dueAtMs < frontierMs) return { dueAtMs: frontierMs, atMs: frontierMs, entryMs: 0, late: true };
    return { dueAtMs, atMs: Math.min(realMs, dueAtMs), entryMs: delayWallMs, late: false };
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    const cancel = this.pending.setTimer(atMs, fn);
    this.arm(this.pending.nextTimerAtMs ?? atMs);
    return cancel;
  }

  /** Runs, in time order, every timer due by now, each at its own time (before an arrival is taken). */
  runDue(): void {
    if (this.running) return;
    this.running = true;
    try {
      this.pending.advanceTo(this.frontierMs());
    } finally {
      this.running = false;
    }
    const next = this.pending.nextTimerAtMs;
    if (next !== undefined) this.arm(next);
  }

  private frontierMs(): number {
    return this.real.nowMs() - this.lagModelMs;
  }

  /** Keeps one native timer armed for the earliest pending timer. */
  private arm(atMs: number): void {
    if (atMs >= this.armedAtMs) return;
    this.cancelArmed?.();
    this.armedAtMs = atMs;
    this.cancelArmed = this.real.setTimer(atMs + this.lagModelMs, () => {
      this.armedAtMs = Number.POSITIVE_INFINITY;
      this.cancelArmed = undefined;
      this.runDue();
    });
  }
}
