/**
 * Time, injected. Everything that waits or measures takes a Clock, so logic is tested on a
 * ManualClock without sleeping, and the real server runs on a ScaledClock (model time = k × wall).
 */
import { TimeScale } from './time-scale.js';

/** Cancels a timer set with {@link Clock.setTimer}; calling it twice is harmless. */
export type CancelTimer = () => void;

export interface Clock {
  /** Milliseconds on this clock's own timeline (monotonic, starts near 0). */
  nowMs(): number;
  /** Calls `fn` once the clock reaches `atMs` (as soon as possible if that is past). */
  setTimer(atMs: number, fn: () => void): CancelTimer;
}

interface PendingTimer {
  readonly atMs: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to. Timers fire in time order (ties in the order they were
 * set), and the clock reads each timer's own time while its callback runs, so a simulation driven
 * by it is exact and repeatable.
 */
export class ManualClock implements Clock {
  private currentMs: number;
  private seq = 0;
  private readonly heap: PendingTimer[] = [];

  constructor(startMs = 0) {
    this.currentMs = startMs;
  }

  nowMs(): number {
    return this.currentMs;
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    const timer: PendingTimer = { atMs: Math.max(atMs, this.currentMs), seq: this.seq++, fn, cancelled: false };
    this.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Runs every timer due up to `targetMs` (including timers those timers set), then stops there. */
  advanceTo(targetMs: number): void {
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.atMs > targetMs) break;
      this.pop();
      if (next.cancelled) continue;
      this.currentMs = next.atMs;
      next.fn();
    }
    this.currentMs = Math.max(this.currentMs, targetMs);
  }

  advanceBy(deltaMs: number): void {
    this.advanceTo(this.currentMs + deltaMs);
  }

  /** When the earliest pending timer is due (it may have been cancelled); undefined when none is pending. */
  get nextTimerAtMs(): number | undefined {
    return this.heap[0]?.atMs;
  }

  private before(a: PendingTimer, b: PendingTimer): boolean {
    return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
  }

  private push(timer: PendingTimer): void {
    const heap = this.heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && this.before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && this.before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) break;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}

/**
 * Wall ms on the machine's monotonic clock: the same time base in every thread and process (the
 * client and a mock in its worker or its own process), unlike performance.now(), which counts from
 * each thread's own origin. Read directly each time: an offset between the two read once is off by
 * however long the thread was preempted between the two reads, on a busy machine milliseconds.
 */
export function monotonicMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1000 + ns / 1e6;
}

interface ScaledClockOptions {
  /**
   * Keep the process alive while a timer is pending. A load run needs it, or the process could exit
   * while the engine sleeps until its next arrival with no socket busy; the mock does not (its
   * server keeps the process alive, and a pending timer must not).
   */
  readonly keepAlive?: boolean;
}

/**
 * The longest delay setTimeout honours (ms): Node turns a longer one into 1 ms. Longer waits are
 * made of chunks of at most this, each re-checking the time left.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The real clock, running `timeScale` times faster than the wall: model time = k × wall time since construction.
 * A wait is timers only, never event-loop turns spent spinning: a timer fires at its time or up to about
 * 1–2 ms of wall time after it (Node's timer granularity), never before. The engine fires whatever is
 * due at each wake, so that lateness is send lag, not lost requests.
 */
export class ScaledClock implements Clock {
  private readonly originMs = performance.now();
  private readonly keepAlive: boolean;
  private readonly scale: TimeScale;

  constructor(
    readonly timeScale = 1,
    options: ScaledClockOptions = {},
  ) {
    this.keepAlive = options.keepAlive ?? false;
    this.scale = TimeScale.of(timeScale, 'timeScale');
  }

  nowMs(): number {
    return this.scale.toModelMs(performance.now() - this.originMs);
  }

  setTimer(atMs: number, fn: () => void): CancelTimer {
    let timeout: NodeJS.Timeout | undefined;
    // Node may fire a timer up to ~1 ms early by performance.now() (its loop time is cached), and
    // at time scale k that is k ms of model time: re-check, and never fire before atMs. The same
    // re-check re-arms a wait longer than MAX_TIMEOUT_MS, chunk by chunk.
    const wait = (wallDelayMs: number): void => {
      timeout = setTimeout(arm, Math.min(wallDelayMs, MAX_TIMEOUT_MS));
      if (!this.keepAlive) timeout.unref();
    };
    const arm = (): void => {
      const wallDelayMs = this.scale.toWallMs(atMs - this.nowMs());
      if (wallDelayMs <= 0) fn();
      else wait(wallDelayMs);
    };
    // Never call fn from inside setTimer, even when atMs is past: callers keep the cancel function first.
    wait(Math.max(0, this.scale.toWallMs(atMs - this.nowMs())));
    return () => {
      if (timeout !== undefined) clearTimeout(timeout);
    };
  }
}
