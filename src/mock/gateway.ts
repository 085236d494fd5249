/**
 * The front door of a rate-limited endpoint, as the spec describes it:
 *  1. a per-client token bucket (429 when empty, Retry-After = time until the next token);
 *  2. at most `maxInFlight` requests in processing; beyond that a bounded FIFO queue, and 429 when
 *     it is full (Retry-After = time until the earliest in-flight request ends);
 *  3. a request whose time in the server (queue + service) reaches `timeoutMs` gets 504 then.
 * Work admitted goes to the Fleet. All times are model milliseconds from an injected clock.
 *
 * Every request has the same timeout, so deadlines come in the order of arrival: the requests not yet
 * answered are kept in that order and one timer is armed, for the oldest one's deadline. A timer per
 * request would be set and cancelled at every request, and a cancelled timer stays in the clock's
 * queue until its time, holding its request (and its response) for the whole timeout.
 */
import type { CancelTimer, Clock } from '../core/index.js';
import type { Fleet, FleetTicket } from './fleet.js';
import type { Work } from './latency-model.js';
import { type RateLimit, retryAfterSeconds, TokenBucket } from './limiter.js';
import { releaseTimeMs, type StallWindows } from './stall-windows.js';

// The stall windows' truths stay importable from here: the coordinated-omission test and bench read them from
// gateway.js.
export { releaseTimeMs, stallTruthMs } from './stall-windows.js';

export interface GatewayLimits {
  /** The per-client token bucket; null disables rate limiting. */
  readonly rate: RateLimit | null;
  /** Requests processed at once (the spec's 128). */
  readonly maxInFlight: number;
  /** Requests that may wait for an in-flight slot before 429s start. */
  readonly queueLimit: number;
  /** Time in the server after which the request gets 504 (model ms). */
  readonly timeoutMs: number;
}

/**
 * What became of a request. `modelMs` (model ms): from its admission to when the model meant its
 * answer to leave, from the model's intended times (the end of service as drawn, the stall window's
 * end, the timeout), not from when a timer really fired: the mock's Server-Timing `svc`.
 */
export type GatewayOutcome =
  | {
      readonly kind: 'ok';
      readonly queuedMs: number;
      readonly serviceMs: number;
      readonly heldMs: number;
      readonly totalMs: number;
      readonly modelMs: number;
    }
  | { readonly kind: 'rate_limited'; readonly retryAfterS: number }
  | { readonly kind: 'concurrency_limited'; readonly retryAfterS: number }
  | { readonly kind: 'timeout'; readonly totalMs: number; readonly modelMs: number };

export interface GatewaySnapshot {
  readonly inFlight: number;
  readonly queued: number;
  readonly admitted: number;
  readonly completed: number;
  readonly rateLimited: number;
  readonly concurrencyLimited: number;
  readonly timedOut: number;
}

interface Job {
  readonly work: Work;
  readonly arrivedAtMs: number;
  readonly onOutcome: (outcome: GatewayOutcome) => void;
  state: 'queued' | 'processing' | 'holding' | 'done';
  ticket?: FleetTicket;
  cancelHold?: CancelTimer;
}

export class Gateway {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly queue = new Set<Job>();
  private readonly inFlight = new Set<Job>();
  /** Requests admitted and not yet answered, in the order of arrival: the order of their deadlines. */
  private readonly unanswered = new Set<Job>();
  /** The one timer for deadlines, armed for the oldest unanswered request's (or later: re-checked when it fires). */
  private cancelDeadlineTimer: CancelTimer | undefined;
  private deadlineTimerAtMs = Number.POSITIVE_INFINITY;
  private admitted = 0;
  private completed = 0;
  private rateLimited = 0;
  private concurrencyLimited = 0;
  private timedOut = 0;
  /** Requests not yet in the model: each waits for its arrival time. */
  private readonly arriving = new Set<CancelTimer>();

  constructor(
    private readonly limits: GatewayLimits,
    private readonly fleet: Fleet,
    private readonly clock: Clock,
    private readonly stall: StallWindows | null = null,
    /** Called before an arrival is taken: runs the model's timers already due (ModelClock.runDue). */
    private readonly runDue: () => void = () => undefined,
  ) {}

  /**
   * Takes a request from `clientId`; `onOutcome` is called exactly once (unless the gateway stops first).
   * `arrivalAtMs`: when it enters the model, when that is later than now (a time-scaled mock running
   * behind the real clock, ModelClock.arrivalMs); it is then taken at that time, among the model's events.
   */
  submit(clientId: string, work: Work, onOutcome: (outcome: GatewayOutcome) => void, arrivalAtMs?: number): void {
    this.runDue();
    if (arrivalAtMs !== undefined && arrivalAtMs > this.clock.nowMs()) {
      const cancel = this.clock.setTimer(arrivalAtMs, () => {
        this.arriving.delete(cancel);
        this.admit(clientId, work, onOutcome);
      });
      this.arriving.add(cancel);
      return;
    }
    this.admit(clientId, work, onOutcome);
  }

  private admit(clientId: string, work: Work, onOutcome: (outcome: GatewayOutcome) => void): void {
    const nowMs = this.clock.nowMs();
    const bucket = this.bucketFor(clientId, nowMs);
    if (bucket !== undefined && !bucket.tryTake(nowMs)) {
      this.rateLimited++;
      onOutcome({ kind: 'rate_limited', retryAfterS: retryAfterSeconds(bucket.msUntilToken(nowMs)) });
      return;
    }
    const canProcess = this.inFlight.size < this.limits.maxInFlight;
    if (!canProcess && this.queue.size >= this.limits.queueLimit) {
      // Not served, so the rate token is returned: a 429 for concurrency does not eat quota.
      bucket?.giveBack();
      this.concurrencyLimited++;
      onOutcome({ kind: 'concurrency_limited', retryAfterS: retryAfterSeconds(this.earliestEndMs() - nowMs) });
      return;
    }
    this.admitted++;
    const job: Job = { work, arrivedAtMs: nowMs, onOutcome, state: 'queued' };
    this.unanswered.add(job);
    this.armDeadlineTimer(this.deadlineOf(job));
    if (canProcess) this.process(job, nowMs);
    else this.queue.add(job);
  }

  snapshot(): GatewaySnapshot {
    return {
      inFlight: this.inFlight.size,
      queued: this.queue.size,
      admitted: this.admitted,
      completed: this.completed,
      rateLimited: this.rateLimited,
      concurrencyLimited: this.concurrencyLimited,
      timedOut: this.timedOut,
    };
  }

  /** Tokens left in a client's bucket (undefined: no limit, or the client has not called yet). */
  bucketLevel(clientId: string): number | undefined {
    return this.buckets.get(clientId)?.level(this.clock.nowMs());
  }

  /** Cancels every pending timer (the server is closing); pending requests get no outcome. */
  stop(): void {
    for (const cancel of this.arriving) cancel();
    this.arriving.clear();
    this.cancelDeadlineTimer?.();
    this.cancelDeadlineTimer = undefined;
    this.deadlineTimerAtMs = Number.POSITIVE_INFINITY;
    for (const job of this.unanswered) {
      job.cancelHold?.();
      job.state = 'done';
    }
    this.unanswered.clear();
    this.queue.clear();
    this.inFlight.clear();
  }

  /** When a request gets 504 (model ms). */
  private deadlineOf(job: Job): number {
    return job.arrivedAtMs + this.limits.timeoutMs;
  }

  /** Arms the deadline timer for `atMs` unless it is armed for that time or earlier. */
  private armDeadlineTimer(atMs: number): void {
    if (atMs >= this.deadlineTimerAtMs) return;
    this.cancelDeadlineTimer?.();
    this.deadlineTimerAtMs = atMs;
    this.cancelDeadlineTimer = this.clock.setTimer(atMs, () => {
      this.cancelDeadlineTimer = undefined;
      this.deadlineTimerAtMs = Number.POSITIVE_INFINITY;
      this.expireDue();
    });
  }

  /**
   * Answers 504 to every request whose deadline has come, oldest first, then arms the timer for the
   * next one. The requests answered meanwhile are gone from `unanswered`: a request answered in time
   * costs no timer.
   */
  private expireDue(): void {
    for (;;) {
      const oldest = this.unanswered.values().next();
      if (oldest.done) return;
      const deadlineMs = this.deadlineOf(oldest.value);
      if (deadlineMs > this.clock.nowMs()) {
        this.armDeadlineTimer(deadlineMs);
        return;
      }
      this.timeOut(oldest.value);
    }
  }

  private bucketFor(clientId: string, nowMs: number): TokenBucket | undefined {
    if (this.limits.rate === null) return undefined;
    let bucket = this.buckets.get(clientId);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.limits.rate, nowMs);
      this.buckets.set(clientId, bucket);
    }
    return bucket;
  }

  /** When the next in-flight slot frees: the earliest service end, or timeout of one still waiting. */
  private earliestEndMs(): number {
    let earliest = Number.POSITIVE_INFINITY;
    for (const job of this.inFlight) {
      const endMs = job.ticket?.doneAtMs ?? job.arrivedAtMs + this.limits.timeoutMs;
      earliest = Math.min(earliest, endMs);
    }
    return Number.isFinite(earliest) ? earliest : this.clock.nowMs();
  }

  /** `atMs`: when the model hands it to the fleet (its admission, when a slot was free). */
  private process(job: Job, atMs = this.clock.nowMs()): void {
    job.state = 'processing';
    this.inFlight.add(job);
    job.ticket = this.fleet.submit(job.work, (ticket) => this.serviceDone(job, ticket), atMs);
  }

  private serviceDone(job: Job, ticket: FleetTicket): void {
    if (job.state !== 'processing') return; // already answered 504; the replica's work was wasted
    const nowMs = this.clock.nowMs();
    // A service that ends at the deadline is too late (the deadline timer may fire after this one at the same time).
    if (nowMs >= this.deadlineOf(job)) return this.timeOut(job);
    // From the intended end of service, not from when its timer fired: a late timer must not move the answer into a
    // stall.
    const readyMs = ticket.doneAtMs ?? nowMs;
    const releaseMs = releaseTimeMs(readyMs, this.stall);
    const serviceMs = readyMs - (ticket.startedAtMs ?? nowMs);
    const respond = (): void => {
      if (this.clock.nowMs() >= this.deadlineOf(job)) return this.timeOut(job);
      this.finish(job, {
        kind: 'ok',
        queuedMs: (ticket.startedAtMs ?? nowMs) - job.arrivedAtMs,
        serviceMs,
        heldMs: releaseMs - readyMs,
        totalMs: this.clock.nowMs() - job.arrivedAtMs,
        modelMs: releaseMs - job.arrivedAtMs,
      });
    };
    if (releaseMs <= nowMs) {
      respond();
    } else {
      job.state = 'holding';
      job.cancelHold = this.clock.setTimer(releaseMs, respond);
    }
  }

  private timeOut(job: Job): void {
    if (job.state === 'done') return;
    if (job.state === 'queued') this.queue.delete(job);
    if (job.state === 'processing' && job.ticket !== undefined) this.fleet.withdraw(job.ticket);
    job.cancelHold?.();
    this.timedOut++;
    this.finish(job, {
      kind: 'timeout',
      totalMs: this.clock.nowMs() - job.arrivedAtMs,
      modelMs: this.limits.timeoutMs,
    });
  }

  private finish(job: Job, outcome: GatewayOutcome): void {
    const wasInFlight = this.inFlight.delete(job);
    this.unanswered.delete(job);
    job.state = 'done';
    if (outcome.kind === 'ok') this.completed++;
    job.onOutcome(outcome);
    if (wasInFlight) this.admitNext();
  }

  private admitNext(): void {
    while (this.inFlight.size < this.limits.maxInFlight) {
      const next = this.queue.values().next();
      if (next.done) return;
      this.queue.delete(next.value);
      this.process(next.value);
    }
  }
}
