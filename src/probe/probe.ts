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
import autocannon from 'autocannon';
import { parseJsonObject } from '../client/index.js';
import { type SendPermit, checkPermitted } from '../core/index.js';
import { accountLatency } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';
import { parseModelLag, parseModelTime } from '../spec/index.js';
import { capAnswers } from './answer-cap.js';
import type { ProbeSteps } from './steps.js';

export interface ProbeRequest {
  /** The endpoint's full URL. */
  readonly url: string;
  /** Headers other than the token's. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ProbeStep {
  readonly connections: number;
  /** How long it ran, model ms (wall × k). */
  readonly durationMs: number;
  /** Requests sent. */
  readonly sent: number;
  /** Answers received in time (within the client deadline, model time), whatever their status. */
  readonly answered: number;
  /** Answers per model minute. */
  readonly answeredRpm: number;
  /** 2xx answers. */
  readonly ok: number;
  /** 2xx answers per model minute. */
  readonly okRpm: number;
  /** Closed-loop latency of the answers other than 429, model ms: not a user's latency. */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number; readonly max: number } | null;
  /** Answers by HTTP status. */
  readonly status: Readonly<Record<string, number>>;
  readonly http429: number;
  /** Answers other than 2xx and 429. */
  readonly otherStatus: number;
  /** Requests that failed without an answer: connection errors, and connections closed or reset under them. */
  readonly errors: number;
  /** 2xx answers whose body is not a JSON object. */
  readonly malformed: number;
  /** Answers over MAX_ANSWER_BYTES (any status): not read on, their connection closed (too_large). */
  readonly tooLarge: number;
  /** Requests not answered within the client deadline (model time). */
  readonly timeouts: number;
  /** Requests still unanswered when the step ended: their latency is unknown, so the percentiles leave the slowest out. */
  readonly cut: number;
}

export type ProbeEnding = 'first 429s' | 'errors' | 'last step' | 'interrupted' | 'token failed';

export interface ProbeResult {
  readonly steps: readonly ProbeStep[];
  readonly endedBy: ProbeEnding;
  /** With 'token failed': why the token call before the next step failed. */
  readonly failure?: string;
}

export interface ProbeOptions {
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
  return Math.floor((maxRpm * timeScale) / 60);
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
    if (step.errors + step.timeouts + step.otherStatus + step.malformed + step.tooLarge > 0) return { steps, endedBy: 'errors' };
    if (step.cut > 0 && connections !== options.steps.connections.at(-1)) {
      const wallMs = options.timeoutMs / options.timeScale;
      options.onPause?.(wallMs);
      await sleep(wallMs, options.signal);
    }
  }
  return { steps, endedBy: 'last step' };
}

function runStep(options: ProbeOptions, connections: number, token: string): Promise<ProbeStep> {
  const k = options.timeScale;
  const latency = MsHistogram.create();
  const status: Record<string, number> = {};
  let late = 0;
  let malformed = 0;
  let tooLarge = 0;
  // Counted here: autocannon's own `requests.sent` starts each paced connection at its rate.
  let sent = 0;
  // Requests whose connection was closed or reset under them: autocannon reconnects and sends the next without a word.
  let vanished = 0;
  // Each connection's request awaiting its answer (one at a time): those still waiting when the step ends are cut.
  const pending: (() => number)[] = [];
  // The model time of the answer whose 'response' comes next: autocannon calls onResponse (with the
  // headers) and emits 'response' (with the time) one after the other, synchronously, for each answer.
  let serverTiming: { serviceMs: number; lagMs: number } | undefined;
  let answerMalformed = false;
  const perSecond = requestsPerWallSecond(options.steps.maxRpm, k);
  const wallS = options.steps.stepMs / k / 1000;
  return new Promise((resolve, reject) => {
    let instance: ReturnType<typeof autocannon> | undefined;
    const stop = (): void => instance?.stop();
    instance = autocannon(
      {
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
        setupClient: (client) => {
          let waiting = 0;
          pending.push(() => waiting);
          client.on('request', () => {
            sent++;
            vanished += waiting;
            waiting = 1;
          });
          // A connection error is among autocannon's errors; a timeout among its timeouts.
          for (const settled of ['response', 'timeout', 'connError'] as const) client.on(settled, () => (waiting = 0));
          // An answer over the cap is settled as too_large: its connection is made again and sends the next.
          capAnswers(client, () => {
            tooLarge++;
            waiting = 0;
          });
        },
        // autocannon takes whole seconds from 1; an answer later than the model deadline is counted as a timeout below.
        timeout: Math.max(1, Math.ceil(options.timeoutMs / k / 1000)),
        requests: [
          {
            onResponse: (status: number, body: string, _context: unknown, headers: Record<string, string | string[]>) => {
              // A 2xx must carry a JSON object, as a run checks it: anything else is not an answer the client can use.
              answerMalformed = status >= 200 && status < 300 && parseJsonObject(body) === undefined;
              // autocannon keeps the names as the server wrote them.
              const header = k > 1 ? Object.entries(headers).find(([name]) => name.toLowerCase() === 'server-timing')?.[1] : undefined;
              const serviceMs = parseModelTime(header);
              serverTiming = serviceMs === undefined ? undefined : { serviceMs, lagMs: parseModelLag(header) ?? 0 };
            },
          },
        ],
      },
      (error, result) => {
        options.signal?.removeEventListener('abort', stop);
        if (error !== null) return reject(error);
        const answered = Object.values(status).reduce((sum, n) => sum + n, 0);
        const ok = Object.entries(status).reduce((sum, [s, n]) => (s.startsWith('2') ? sum + n : sum), 0);
        const http429 = status['429'] ?? 0;
        const durationMs = result.duration * 1000 * k;
        const perMinute = (n: number): number => (durationMs > 0 ? Math.round((n / durationMs) * 60_000 * 10) / 10 : 0);
        // autocannon counts a timeout among its errors too.
        const errors = Math.max(0, result.errors - result.timeouts) + vanished;
        const timeouts = result.timeouts + late;
        const cut = pending.reduce((n, waiting) => n + waiting(), 0);
        resolve({
          connections,
          durationMs: Math.round(durationMs),
          sent,
          answered,
          answeredRpm: perMinute(answered),
          ok,
          okRpm: perMinute(ok),
          latencyMs: latency.count === 0 ? null : { p50: latency.percentileMs(50), p95: latency.percentileMs(95), p99: latency.percentileMs(99), max: latency.percentileMs(100) },
          status,
          http429,
          otherStatus: answered - ok - http429,
          errors,
          timeouts,
          malformed,
          tooLarge,
          cut,
        });
      },
    );
    options.signal?.addEventListener('abort', stop, { once: true });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, wallMs: number) => {
      const timing = serverTiming;
      const bad = answerMalformed;
      serverTiming = undefined;
      answerMalformed = false;
      if (bad) {
        malformed++;
        return;
      }
      const modelMs = timing === undefined ? wallMs * k : accountLatency({ intendedAtMs: 0, lastSentAtMs: 0, endAtMs: wallMs * k, tries: [{ sentAtMs: 0, endAtMs: wallMs * k, ...timing }] }, k).latencyMs;
      // Past the client deadline in model time: what a client holding to it would have counted as a timeout.
      if (modelMs > options.timeoutMs) {
        late++;
        return;
      }
      status[statusCode] = (status[statusCode] ?? 0) + 1;
      // A 429 is a refusal, answered at once: its speed says nothing of the service's.
      if (statusCode !== 429) latency.recordMs(modelMs);
    });
  });
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
