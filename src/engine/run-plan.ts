/**
 * The open-model engine: arrival i is fired at start + plan offset i on the model clock, whether
 * or not earlier requests have finished (offsets from the start, so timer error never accumulates).
 * It sleeps on one timer until the next arrival is due, and on each wake fires, in plan order, every
 * arrival due by then (a batch): no spinning, so CPU goes to requests only. Timer granularity and a
 * busy loop make it late: it fires the overdue arrivals at once, keeping their intended times,
 * so latency is measured from when each request *should* have gone (no coordinated omission) and
 * the lateness is recorded as send lag. An arrival that finds `maxInFlight` requests outstanding
 * is not queued: it is counted as dropped. Every arrival ends in exactly one RequestEvent, stopped
 * or not: after a stop the arrivals never fired are `unsent`, the requests in flight get `drainMs`
 * to answer, and those still unanswered then are cancelled (`abandoned`).
 */
import { type IdentifyFn, type RequestResult, sleepUntilOrStop } from '../client/index.js';
import type { Clock, CountedOutcome } from '../core/index.js';
import { type Plan, seqInWholePlan } from '../plan/index.js';

/** One planned arrival's fate. Times are model ms from the run start. */
export interface RequestEvent {
  /** 0-based position in the plan. */
  readonly seq: number;
  /** Index of the phase it belongs to. */
  readonly phase: number;
  readonly intendedAtMs: number;
  /** `dropped`: maxInFlight requests were outstanding; `unsent`: the run stopped before it was sent. */
  readonly outcome: CountedOutcome;
  /**
   * When its first attempt was sent (the client's `sentAtMs`: headers written to the socket), or, when
   * no attempt was sent (unsent after the hand-off), when the engine handed it to the client; absent
   * when dropped or never reached. Send lag = firedAtMs − intendedAtMs.
   */
  readonly firedAtMs?: number;
  /** Absent when no attempt was sent. */
  readonly result?: RequestResult;
  /**
   * A deid piece that waited for its document's earlier pieces: when it was free to go. Its latency and
   * send lag run from here; intendedAtMs stays the plan's (the phase, warm-up and band it is judged in).
   */
  readonly readyAtMs?: number;
}

interface EngineOptions {
  readonly plan: Plan;
  readonly identify: IdentifyFn;
  /** The text of arrival `seq`. */
  readonly payload: (seq: number) => string;
  /** The run's model clock. */
  readonly clock: Clock;
  readonly maxInFlight: number;
  /** Aborting stops the firing (and the client's new attempts); requests in flight are awaited up to `drainMs`. */
  readonly signal: AbortSignal;
  /** How long to wait for in-flight requests after a stop (model ms). */
  readonly drainMs: number;
  /** Called when the drain ends with requests still in flight: the client must settle them at once (abandoned). */
  readonly cancelInFlight: () => void;
  /** Called once per arrival, as soon as its fate is known. */
  readonly onEvent: (event: RequestEvent) => void;
  /**
   * The run's start on the clock (event times are from it): now by default; ahead, the engine waits for it; past, its
   * first arrivals are overdue.
   */
  readonly startMs?: number;
  /** Called once, before the first arrival, with the run's start on the clock (event times are from it). */
  readonly onStart?: (startMs: number) => void;
  /**
   * Requests handed to the client that it holds back, not yet sent (a deid document's later pieces, behind
   * its concurrency): not in flight at the service, so not counted against maxInFlight.
   */
  readonly queued?: () => number;
  /**
   * Whether arrival `seq` is admitted as a group's member is (a deid document is admitted or dropped whole,
   * at its first piece): `decide` by maxInFlight (the default), `admit`, or `drop`.
   */
  readonly admission?: (seq: number) => 'decide' | 'admit' | 'drop';
}

export interface EngineResult {
  /** Arrivals handed to the client (dropped ones excluded). */
  readonly fired: number;
  /** Arrivals that found maxInFlight requests outstanding: never sent. */
  readonly dropped: number;
  /** Planned requests never sent: not reached before the stop, or stopped before their first attempt. */
  readonly unsent: number;
  /** Requests still unanswered when the drain ended, cancelled (each has its event, outcome abandoned). */
  readonly abandoned: number;
  /** The firing was stopped before the end of the plan. */
  readonly interrupted: boolean;
  /** Model ms from the run start to the end of the last answer (or of the drain). */
  readonly elapsedMs: number;
}

export async function runPlan(options: EngineOptions): Promise<EngineResult> {
  const clock = options.clock;
  const startMs = options.startMs ?? clock.nowMs();
  options.onStart?.(startMs);
  const firing = new Firing(options, startMs);
  let interrupted = await fireAll(firing);
  // Every planned request has its event: those never fired are unsent.
  if (interrupted) firing.emitUnreached();
  interrupted = await awaitAnswers(options, firing.inFlight, interrupted);
  const { fired, dropped, unsent, abandoned } = firing;
  // Stopped while waiting for a --start-at still ahead: no time of the schedule has passed.
  return { fired, dropped, unsent, abandoned, interrupted, elapsedMs: Math.max(0, clock.nowMs() - startMs) };
}

/** The arrivals of one run as they are fired: the requests in flight, and the counts of each fate. */
class Firing {
  readonly inFlight = new Set<Promise<void>>();
  fired = 0;
  dropped = 0;
  unsent = 0;
  abandoned = 0;
  /** Arrivals reached so far (fired or dropped); a shard's keep their seq in the whole plan. */
  reached = 0;

  constructor(
    readonly options: EngineOptions,
    readonly startMs: number,
  ) {}

  emit(event: RequestEvent): void {
    if (event.outcome === 'unsent') this.unsent++;
    if (event.outcome === 'abandoned') this.abandoned++;
    this.options.onEvent(event);
  }

  /** Hands the next arrival to the client, or drops it when maxInFlight requests are outstanding. */
  fire(phase: number, intendedAtMs: number): void {
    const { options, inFlight, startMs } = this;
    const mySeq = seqInWholePlan(options.plan, this.reached++);
    const admission = options.admission?.(mySeq) ?? 'decide';
    if (
      admission === 'drop' ||
      (admission === 'decide' && inFlight.size - (options.queued?.() ?? 0) >= options.maxInFlight)
    ) {
      this.dropped++;
      this.emit({ seq: mySeq, phase, intendedAtMs, outcome: 'dropped' });
      return;
    }
    this.fired++;
    const handedAtMs = options.clock.nowMs() - startMs;
    // One promise per request beyond the client's own: it emits the event and leaves the in-flight set.
    const tracked: Promise<void> = options.identify(options.payload(mySeq), mySeq, startMs + intendedAtMs).then(
      (result) => {
        inFlight.delete(tracked);
        this.emit(
          result === undefined
            ? { seq: mySeq, phase, intendedAtMs, outcome: 'unsent', firedAtMs: handedAtMs }
            : // Fired when its first attempt was actually sent (headers on the socket): the wait for a token or a
              // connection is send lag, not service time.
              withReady(
                {
                  seq: mySeq,
                  phase,
                  intendedAtMs,
                  outcome: result.outcome,
                  firedAtMs: result.sentAtMs - startMs,
                  result: shift(result, startMs),
                },
                result.readyAtMs,
                startMs,
              ),
        );
      },
      // createIdentify never rejects; if it ever did, the request still counts, as an error.
      () => {
        inFlight.delete(tracked);
        this.emit({ seq: mySeq, phase, intendedAtMs, outcome: 'error', firedAtMs: handedAtMs });
      },
    );
    inFlight.add(tracked);
  }

  /** The unsent event of every planned arrival not reached before the stop. */
  emitUnreached(): void {
    const plan = this.options.plan;
    let i = 0;
    for (const phase of plan.phases) {
      for (const offsetMs of phase.arrivalsMs) {
        if (i++ >= this.reached)
          this.emit({
            seq: seqInWholePlan(plan, i - 1),
            phase: phase.index,
            intendedAtMs: offsetMs,
            outcome: 'unsent',
          });
      }
    }
  }
}

/** Fires every arrival of the plan when it is due, until the end or a stop; whether it was stopped. */
async function fireAll(firing: Firing): Promise<boolean> {
  const { options, startMs } = firing;
  const { plan, clock, signal } = options;
  const sleeper = wakeableSleep(clock, signal);
  let interrupted = false;
  outer: for (const phase of plan.phases) {
    for (const offsetMs of phase.arrivalsMs) {
      if (signal.aborted) {
        interrupted = true;
        break outer;
      }
      if (clock.nowMs() < startMs + offsetMs) await sleeper.sleepUntilDue(startMs + offsetMs);
      if (signal.aborted) {
        interrupted = true;
        break outer;
      }
      firing.fire(phase.index, offsetMs);
    }
  }
  sleeper.close();
  return interrupted;
}

/**
 * Sleeps on the clock until an arrival is due, woken at once by a stop. One abort listener for the whole
 * firing, not one added and removed per sleep (EventTarget's are costly at 1,000 sleeps a second).
 */
function wakeableSleep(
  clock: Clock,
  signal: AbortSignal,
): { sleepUntilDue: (atMs: number) => Promise<void>; close: () => void } {
  // One of each function for the whole firing, not new ones per sleep: a sleep makes only its promise and its timer.
  let resolveSleep: (() => void) | undefined;
  let cancelTimer: (() => void) | undefined;
  const wake = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
    const resolve = resolveSleep;
    resolveSleep = undefined;
    resolve?.();
  };
  const onTimer = (): void => {
    cancelTimer = undefined;
    wake();
  };
  const hold = (resolve: () => void): void => {
    resolveSleep = resolve;
  };
  signal.addEventListener('abort', wake, { once: true });
  const sleepUntilDue = (atMs: number): Promise<void> => {
    const sleep = new Promise<void>(hold);
    cancelTimer = clock.setTimer(atMs, onTimer);
    return sleep;
  };
  return { sleepUntilDue, close: () => signal.removeEventListener('abort', wake) };
}

/**
 * Waits for the answers. A stop (before or during this wait) gives them drainMs, then cancels what
 * is left and collects it, so every request fired has its event. Whether the run ends interrupted.
 */
async function awaitAnswers(
  options: EngineOptions,
  inFlight: Set<Promise<void>>,
  firingInterrupted: boolean,
): Promise<boolean> {
  const { clock, signal } = options;
  let interrupted = firingInterrupted;
  if (!interrupted) {
    await untilAborted(AbortSignal.any([signal, settledSignal(inFlight)]));
    interrupted = signal.aborted && inFlight.size > 0;
  }
  if (interrupted && inFlight.size > 0) {
    await sleepUntilOrStop(clock, clock.nowMs() + options.drainMs, settledSignal(inFlight));
    if (inFlight.size > 0) options.cancelInFlight();
  }
  await Promise.all(inFlight);
  return interrupted;
}

/** Resolves when `signal` aborts (no timer: what it waits for keeps the process alive). */
function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** A signal that aborts once every promise in `pending` (as it is when asked) has settled. */
function settledSignal(pending: ReadonlySet<Promise<void>>): AbortSignal {
  const controller = new AbortController();
  void Promise.all(pending).then(() => controller.abort());
  return controller.signal;
}

/** The event, with `readyAtMs` (clock ms) from the run start when the client held the request back. */
function withReady(event: RequestEvent, readyAtMs: number | undefined, startMs: number): RequestEvent {
  return readyAtMs === undefined ? event : { ...event, readyAtMs: readyAtMs - startMs };
}

/** A result's times from `startMs` (the run's start) instead of the clock's origin. */
export function shift(result: RequestResult, startMs: number): RequestResult {
  return {
    ...result,
    sentAtMs: result.sentAtMs - startMs,
    lastSentAtMs: result.lastSentAtMs - startMs,
    endAtMs: result.endAtMs - startMs,
    tries: result.tries.map((t) => ({ ...t, sentAtMs: t.sentAtMs - startMs, endAtMs: t.endAtMs - startMs })),
  };
}
