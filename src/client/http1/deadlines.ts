/**
 * Deadlines for many attempts on one timer, instead of a setTimeout (and an AbortController) per
 * attempt: entries are kept in deadline order — which is the order they are added in when every
 * attempt has the same timeout, so adding is O(1) — and the one timer is armed for the earliest.
 * An entry that settles is only marked; it is dropped when the sweep reaches it.
 *
 * An entry may be stretched: given `latestAt`, when its deadline passes while the tool itself was held up (its own
 * loop, the embedded mock's: `stalledMs`), it is given that much more wall time, up to `latestAt`. A time-scaled run
 * waits only timeout ÷ k for an answer (src/client/attempt-deadline.ts), and on a busy machine one stall of the
 * mock's thread outlasted that: the timeouts were the tool's, counted as the service's.
 */

/** Something with a deadline: `expire` (which must settle it) is called once it passes, unless it was settled first. */
export interface Expiring {
  /** Wall ms (performance.now()) by which it must settle. */
  deadlineAt: number;
  /** The latest it may be stretched to for the tool's own stalls (wall ms); none without. */
  readonly latestAt?: number | undefined;
  /** The stall total (stalledMs) when it was added, or last stretched. */
  stallsSeen?: number;
  /** Settled before its deadline: the sweep skips it. */
  settled: boolean;
  expire(): void;
}

export class Deadlines {
  // Slots before `head` are emptied as it passes them, so a settled entry is let go at once.
  private queue: (Expiring | undefined)[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  /** `stalledMs`: the tool's own stalls so far (wall ms; see src/core/stall-meter.ts), read for stretchable entries. */
  constructor(private readonly stalledMs?: () => number) {}

  add(entry: Expiring): void {
    if (entry.latestAt !== undefined && entry.stallsSeen === undefined) entry.stallsSeen = this.stalledMs?.() ?? 0;
    this.insert(entry);
  }

  private insert(entry: Expiring): void {
    this.dropSettledHead();
    const q = this.queue;
    if (q.length === this.head || q[q.length - 1]!.deadlineAt <= entry.deadlineAt) q.push(entry);
    else {
      // Out of order (a shorter timeout than the last one added): insert it in place.
      let lo = this.head;
      let hi = q.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (q[mid]!.deadlineAt <= entry.deadlineAt) lo = mid + 1;
        else hi = mid;
      }
      q.splice(lo, 0, entry);
    }
    if (entry.deadlineAt < this.armedAt) this.arm(entry.deadlineAt);
  }

  /** Entries still held (settled ones included until they are let go). */
  get held(): number {
    return this.queue.length - this.head;
  }

  /** Entries the queue still references (for tests: it walks the whole array). */
  get referenced(): number {
    return this.queue.reduce((n, e) => n + (e === undefined ? 0 : 1), 0);
  }

  /** Every entry not yet settled, in deadline order (for a cancel of all that are in flight). */
  pending(): Expiring[] {
    return this.queue.slice(this.head).filter((e): e is Expiring => e !== undefined && !e.settled);
  }

  /** Stops the timer; the entries are forgotten. */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
    this.queue = [];
    this.head = 0;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedAt = at;
    // +1: setTimeout may fire up to 1 ms early against performance.now(); the sweep re-arms if so.
    this.timer = setTimeout(this.sweep, Math.max(0, at - performance.now()) + 1);
    // The requests themselves keep the process alive; an idle deadline must not.
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = performance.now();
    const q = this.queue;
    const due: Expiring[] = [];
    const stretched: Expiring[] = [];
    while (this.head < q.length) {
      const entry = q[this.head]!;
      if (!entry.settled && entry.deadlineAt > now) break;
      q[this.head++] = undefined;
      if (entry.settled) continue;
      if (this.stretch(entry)) stretched.push(entry);
      else due.push(entry);
    }
    for (const entry of stretched) this.insert(entry);
    // Expire after this turn's poll, not now: after a stall (a busy machine, a long GC) Node runs due
    // timers before it reads the sockets, so an answer that arrived during the stall would lose to its
    // deadline. setImmediate runs once the sockets that are ready have been read.
    if (due.length > 0) setImmediate(expireUnsettled, due);
    this.compact();
    if (this.head < this.queue.length) this.arm(this.queue[this.head]!.deadlineAt);
  };

  /** Gives a stretchable entry the wall time the tool was stalled since it was added (or last stretched). */
  private stretch(entry: Expiring): boolean {
    if (entry.latestAt === undefined || this.stalledMs === undefined || entry.deadlineAt >= entry.latestAt)
      return false;
    const stalls = this.stalledMs();
    const more = stalls - (entry.stallsSeen ?? stalls);
    if (more <= 0) return false;
    entry.stallsSeen = stalls;
    entry.deadlineAt = Math.min(entry.latestAt, entry.deadlineAt + more);
    return true;
  }

  /**
   * Lets go of the settled entries at the front. Answers mostly come in the order sent, so without this
   * every settled entry would wait for the sweep at the first deadline (a whole timeout later), live
   * long enough to be promoted to V8's old space, and make its collections frequent and long (at
   * 3,000 req/s they were the send lag's worst pauses). The timer may then fire for an entry gone:
   * the sweep re-arms for the new front.
   */
  private dropSettledHead(): void {
    const q = this.queue;
    while (this.head < q.length && q[this.head]!.settled) q[this.head++] = undefined;
    this.compact();
  }

  /**
   * Compacts now and then, so a long run does not keep an ever longer array of empty slots (the entries
   * themselves are let go as `head` passes them: one the array still held for a second, at 1,000
   * requests/s, lived long enough to be promoted to V8's old space, about 100 bytes per request).
   */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}

function expireUnsettled(due: readonly Expiring[]): void {
  for (const entry of due) if (!entry.settled) entry.expire();
}
