/**
 * The mock's real clock (model time = k × wall time), with the model's timers kept in time order
 * and run at their own times. A native timer fires up to about a millisecond late (k ms of model
 * time), and the model must not inherit that: each timer's callback reads the time it was due, and
 * `runDue()` — called before a new arrival is taken — first runs every timer already due, in order.
 * So a slot whose service ended by the model's clock is free for the next arrival even when its
 * native timer has not fired yet, and what the model does does not depend on k. One native timer
 * is armed at a time, for the earliest pending timer; no busy waiting.
 */
import { type CancelTimer, type Clock, ManualClock, ScaledClock } from '../core/clock.js';

export class ModelClock implements Clock {
  private readonly real: ScaledClock;
  /** The model's timers, in time order; it reads each timer's own time while its callback runs. */
  private readonly pending = new ManualClock(0);
  private running = false;
  private armedAtMs = Number.POSITIVE_INFINITY;
  private cancelArmed: CancelTimer | undefined;

  constructor(readonly timeScale: number) {
    // Not keepAlive: the server keeps the process (or thread) alive; a pending model timer must not.
    this.real = new ScaledClock(timeScale);
  }

  nowMs(): number {
    return this.running ? this.pending.nowMs() : this.real.nowMs();
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
      this.pending.advanceTo(this.real.nowMs());
    } finally {
      this.running = false;
    }
    const next = this.pending.nextTimerAtMs;
    if (next !== undefined) this.arm(next);
  }

  /** Keeps one native timer armed for the earliest pending timer. */
  private arm(atMs: number): void {
    if (atMs >= this.armedAtMs) return;
    this.cancelArmed?.();
    this.armedAtMs = atMs;
    this.cancelArmed = this.real.setTimer(atMs, () => {
      this.armedAtMs = Number.POSITIVE_INFINITY;
      this.cancelArmed = undefined;
      this.runDue();
    });
  }
}
