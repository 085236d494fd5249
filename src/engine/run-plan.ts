/**
 * The open-model engine: arrival i is fired at start + plan offset i on the model clock, whether
 * or not earlier requests have finished (offsets from the start, so timer error never accumulates).
 * When the generator is late it fires the overdue arrivals at once, keeping their intended times,
 * so latency is measured from when each request *should* have gone (no coordinated omission) and
 * the lateness is recorded as send lag. An arrival that finds `maxInFlight` requests outstanding
 * is not queued: it is counted as dropped. Every arrival ends in exactly one RequestEvent.
 */
import { type Clock, sleepUntil } from '../core/clock.js';
import type { IdentifyFn, RequestResult } from '../client/api.js';
import type { Outcome } from '../client/classify.js';
import type { Plan } from '../plan/index.js';

/** One planned arrival's fate. Times are model ms from the run start. */
export interface RequestEvent {
  /** 0-based position in the plan. */
  readonly seq: number;
  /** Index of the phase it belongs to. */
  readonly phase: number;
  readonly intendedAtMs: number;
  readonly outcome: Outcome | 'dropped';
  /** When the engine handed it to the client; absent when dropped. */
  readonly firedAtMs?: number;
  readonly result?: RequestResult;
}

export interface EngineOptions {
  readonly plan: Plan;
  readonly identify: IdentifyFn;
  /** The text of arrival `seq`. */
  readonly payload: (seq: number) => string;
  /** The run's model clock. */
  readonly clock: Clock;
  readonly maxInFlight: number;
  /** Aborting stops the firing; requests in flight are still awaited, up to `drainMs`. */
  readonly signal: AbortSignal;
  /** How long to wait for in-flight requests after a stop (model ms). */
  readonly drainMs: number;
  /** Called once per arrival, as soon as its fate is known. */
  readonly onEvent: (event: RequestEvent) => void;
}

export interface EngineResult {
  /** Arrivals fired (handed to the client) or dropped. */
  readonly fired: number;
  readonly dropped: number;
  /** Arrivals never fired because the run was stopped. */
  readonly unsent: number;
  /** Requests still in flight when the drain ended (their events were never emitted). */
  readonly abandoned: number;
  readonly interrupted: boolean;
  /** Model ms from the run start to the end of the last answer (or of the drain). */
  readonly elapsedMs: number;
}

export async function runPlan(options: EngineOptions): Promise<EngineResult> {
  const { plan, clock, signal } = options;
  const startMs = clock.nowMs();
  const inFlight = new Set<Promise<void>>();
  let fired = 0;
  let dropped = 0;
  let seq = 0;
  let interrupted = false;

  const fire = (phase: number, intendedAtMs: number): void => {
    const mySeq = seq++;
    fired++;
    if (inFlight.size >= options.maxInFlight) {
      dropped++;
      options.onEvent({ seq: mySeq, phase, intendedAtMs, outcome: 'dropped' });
      return;
    }
    const firedAtMs = clock.nowMs() - startMs;
    const request = options.identify(options.payload(mySeq), mySeq).then(
      (result) => options.onEvent({ seq: mySeq, phase, intendedAtMs, outcome: result.outcome, firedAtMs, result: shift(result, startMs) }),
      // createIdentify never rejects; if it ever did, the request still counts, as an error.
      () => options.onEvent({ seq: mySeq, phase, intendedAtMs, outcome: 'error', firedAtMs }),
    );
    const tracked = request.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  outer: for (const phase of plan.phases) {
    for (const offsetMs of phase.arrivalsMs) {
      if (signal.aborted) {
        interrupted = true;
        break outer;
      }
      if (clock.nowMs() < startMs + offsetMs) await sleepOrAbort(clock, startMs + offsetMs, signal);
      if (signal.aborted) {
        interrupted = true;
        break outer;
      }
      fire(phase.index, offsetMs);
    }
  }

  // Wait for the answers; after a stop, only up to drainMs.
  const all = Promise.all(inFlight).then(() => true);
  const finished = interrupted ? await Promise.race([all, sleepUntil(clock, clock.nowMs() + options.drainMs).then(() => false)]) : await all;
  return {
    fired,
    dropped,
    unsent: plan.arrivals - fired,
    abandoned: finished ? 0 : inFlight.size,
    interrupted,
    elapsedMs: clock.nowMs() - startMs,
  };
}

/** The same result with its times made relative to the run start. */
function shift(result: RequestResult, startMs: number): RequestResult {
  return { ...result, sentAtMs: result.sentAtMs - startMs, lastSentAtMs: result.lastSentAtMs - startMs, endAtMs: result.endAtMs - startMs };
}

function sleepOrAbort(clock: Clock, atMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const cancel = clock.setTimer(atMs, done);
    function done(): void {
      cancel();
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
