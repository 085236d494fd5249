/**
 * The saturation probe: a closed loop (each connection sends its next request when its last is
 * answered) run by autocannon, one step per connection count, every step capped at the same rate. It
 * finds where 429s or errors begin, not an SLA: a closed loop slows down with the service (coordinated
 * omission), so its latency is not what a user at a fixed arrival rate would see.
 *
 * Each step is bounded in requests (the cap × the step, autocannon's maxOverallRequests) and in time
 * (autocannon's duration, checked every 100 ms), so it sends at most what the guard judged. Requests
 * still unanswered when a step ends are counted (`cut`), and before the next step the probe waits for
 * them to leave the service (up to the client deadline), so a larger step does not meet a smaller one's
 * leftovers. Against a time-scaled mock, latency is built as the run's is (src/judge/accounting.ts):
 * the mock's Server-Timing model time, and the wall-clock overheads counted once.
 */
import autocannon, { type Options as AutocannonOptions } from 'autocannon';

import { checkPermitted, type SendPermit, TimeScale } from '../core/index.js';
import { type ProbeStep, StepTally } from './step-tally.js';
import type { ProbeSteps } from './steps.js';

interface ProbeRequest {
  /** The endpoint's full URL. */
  readonly url: string;
  /** Headers other than the token's. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type { ProbeStep } from './step-tally.js';

export type ProbeEnding = 'first 429s' | 'errors' | 'last step' | 'interrupted' | 'token failed';

export interface ProbeResult {
  readonly steps: readonly ProbeStep[];
  readonly endedBy: ProbeEnding;
  /** With 'token failed': why the token call before the next step failed. */
  readonly failure?: string;
}

interface ProbeOptions {
  /** The guard's permit: autocannon is started only toward what it covers. */
  readonly permit: SendPermit;
  readonly request: ProbeRequest;
  readonly steps: ProbeSteps;
  /** A fresh access token, asked for before each step (a probe may outlast a token). */
  readonly token: () => Promise<string>;
  /** k: against a time-scaled mock, steps last stepMs ÷ k of wall time and rates are × k. */
  readonly timeScale: number;
  /** The client deadline of a request, model ms. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Told after each step. */
  readonly onStep?: (step: ProbeStep) => void;
  /** Told before the probe waits for a step's cut requests to leave the service (wall ms). */
  readonly onPause?: (wallMs: number) => void;
}

/** autocannon's pacing: whole requests per wall second. */
export function requestsPerWallSecond(maxRpm: number, timeScale: number): number {
  return Math.floor(TimeScale.of(timeScale).toWallRate(maxRpm) / 60);
}

export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  checkPermitted(options.permit, options.request.url);
  const steps: ProbeStep[] = [];
  const aborted = (): boolean => options.signal?.aborted === true;
  for (const connections of options.steps.connections) {
    if (aborted()) return { steps, endedBy: 'interrupted' };
    let token: string | undefined;
    try {
      token = await untilAborted(options.token(), options.signal);
    } catch (error) {
      // Before any step nothing was measured: the failure is the outcome. After, the steps measured are kept.
      if (steps.length === 0) throw error;
      return { steps, endedBy: 'token failed', failure: (error as Error).message };
    }
    if (token === undefined) return { steps, endedBy: 'interrupted' };
    const step = await runStep(options, connections, token);
    steps.push(step);
    options.onStep?.(step);
    if (aborted()) return { steps, endedBy: 'interrupted' };
    if (step.http429 > 0) return { steps, endedBy: 'first 429s' };
    if (step.errors + step.timeouts + step.otherStatus + step.malformed + step.tooLarge > 0)
      return { steps, endedBy: 'errors' };
    if (step.cut > 0 && connections !== options.steps.connections.at(-1)) {
      const wallMs = TimeScale.of(options.timeScale).toWallMs(options.timeoutMs);
      options.onPause?.(wallMs);
      await sleep(wallMs, options.signal);
    }
  }
  return { steps, endedBy: 'last step' };
}

/** One step: autocannon with `connections` connections, paced at the cap, for the step's wall time. */
function runStep(options: ProbeOptions, connections: number, token: string): Promise<ProbeStep> {
  const scale = TimeScale.of(options.timeScale);
  const tally = new StepTally(scale, options.timeoutMs);
  return new Promise((resolve, reject) => {
    // Declared before it is made: `stop` may be handed to the signal before autocannon returns the instance.
    // eslint-disable-next-line prefer-const
    let instance: ReturnType<typeof autocannon> | undefined;
    const stop = (): void => instance?.stop();
    instance = autocannon(stepSettings(options, scale, connections, token, tally), (error, result) => {
      options.signal?.removeEventListener('abort', stop);
      if (error !== null) return reject(error);
      resolve(tally.step(connections, result));
    });
    options.signal?.addEventListener('abort', stop, { once: true });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, wallMs: number) =>
      tally.countAnswer(statusCode, wallMs),
    );
  });
}

/** autocannon's settings for one step: bounded in requests and in time, each answer read by `tally`. */
function stepSettings(
  options: ProbeOptions,
  scale: TimeScale,
  connections: number,
  token: string,
  tally: StepTally,
): AutocannonOptions {
  const perSecond = requestsPerWallSecond(options.steps.maxRpm, scale.k);
  const wallS = scale.toWallMs(options.steps.stepMs) / 1000;
  return {
    url: options.request.url,
    method: 'POST',
    headers: { ...options.request.headers, authorization: `Bearer ${token}` },
    body: options.request.body,
    connections,
    duration: wallS,
    // Whole requests a wall second (autocannon cuts the connections to it when it is lower: steps.ts refuses that).
    overallRate: perSecond,
    // No more than the cap over the step, whatever autocannon's per-second quotas do at a second's edge.
    maxOverallRequests: Math.max(connections, Math.floor(perSecond * wallS)),
    // How often autocannon looks at its stop flag: the step ends within 100 ms of its length.
    sampleInt: 100,
    setupClient: (client) => tally.watch(client),
    // autocannon takes whole seconds from 1; an answer later than the model deadline is counted as a timeout
    // (StepTally).
    timeout: Math.max(1, Math.ceil(scale.toWallMs(options.timeoutMs) / 1000)),
    requests: [
      {
        onResponse: (status: number, body: string, _context: unknown, headers: Record<string, string | string[]>) =>
          tally.readAnswer(status, body, headers),
      },
    ],
  };
}

/** `work`'s value, or undefined as soon as `signal` aborts (the work is left to finish on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    if (signal?.aborted === true) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}
