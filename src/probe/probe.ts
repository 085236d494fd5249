/**
 * The saturation probe: a closed loop (each connection sends its next request when its last is
 * answered) run by autocannon, one step per connection count, every step capped at the same rate. It
 * finds a ceiling — where 429s or errors begin — not an SLA: a closed loop slows down with the service
 * (coordinated omission), so its latency is not what a user at a fixed arrival rate would see.
 */
import autocannon from 'autocannon';
import { MsHistogram } from '../recorder/index.js';
import type { ProbeSteps } from './steps.js';

export interface ProbeRequest {
  /** The endpoint's full URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface ProbeStep {
  readonly connections: number;
  /** How long it ran, model ms (wall × k). */
  readonly durationMs: number;
  /** Answers received in time (before the client deadline, model time), whatever their status. */
  readonly answered: number;
  /** Answers per model minute. */
  readonly answeredRpm: number;
  /** 2xx answers per model minute. */
  readonly okRpm: number;
  /** Closed-loop latency of the answers other than 429, model ms (wall × k): not a user's latency. */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number; readonly max: number } | null;
  /** Answers by HTTP status. */
  readonly status: Readonly<Record<string, number>>;
  readonly http429: number;
  /** Answers other than 2xx and 429. */
  readonly otherStatus: number;
  /** Requests that failed without an answer (connection errors). */
  readonly errors: number;
  /** Requests not answered within the client deadline (model time). */
  readonly timeouts: number;
}

export type ProbeEnding = 'first 429s' | 'errors' | 'last step' | 'interrupted';

export interface ProbeResult {
  readonly steps: readonly ProbeStep[];
  readonly endedBy: ProbeEnding;
}

export interface ProbeOptions {
  readonly request: ProbeRequest;
  readonly steps: ProbeSteps;
  /** k: against a time-scaled mock, steps last stepMs ÷ k of wall time and rates are × k. */
  readonly timeScale: number;
  /** The client deadline of a request, model ms. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Told after each step. */
  readonly onStep?: (step: ProbeStep) => void;
}

export async function runProbe(options: ProbeOptions): Promise<ProbeResult> {
  const steps: ProbeStep[] = [];
  const aborted = (): boolean => options.signal?.aborted === true;
  for (const connections of options.steps.connections) {
    if (aborted()) return { steps, endedBy: 'interrupted' };
    const step = await runStep(options, connections);
    steps.push(step);
    options.onStep?.(step);
    if (aborted()) return { steps, endedBy: 'interrupted' };
    if (step.http429 > 0) return { steps, endedBy: 'first 429s' };
    if (step.errors + step.timeouts + step.otherStatus > 0) return { steps, endedBy: 'errors' };
  }
  return { steps, endedBy: 'last step' };
}

function runStep(options: ProbeOptions, connections: number): Promise<ProbeStep> {
  const k = options.timeScale;
  const latency = MsHistogram.create();
  const status: Record<string, number> = {};
  let late = 0;
  return new Promise((resolve, reject) => {
    let instance: ReturnType<typeof autocannon> | undefined;
    const stop = (): void => instance?.stop();
    instance = autocannon(
      {
        url: options.request.url,
        method: 'POST',
        headers: { ...options.request.headers },
        body: options.request.body,
        connections,
        duration: options.steps.stepMs / k / 1000,
        // autocannon cuts the connections to the rate (per second) when it is lower.
        overallRate: Math.max(connections, Math.floor((options.steps.maxRpm * k) / 60)),
        // autocannon takes whole seconds from 1; an answer later than the model deadline is counted as a timeout below.
        timeout: Math.max(1, Math.ceil(options.timeoutMs / k / 1000)),
      },
      (error, result) => {
        options.signal?.removeEventListener('abort', stop);
        if (error !== null) return reject(error);
        const answered = Object.values(status).reduce((sum, n) => sum + n, 0);
        const ok = Object.entries(status).reduce((sum, [s, n]) => (s.startsWith('2') ? sum + n : sum), 0);
        const http429 = status['429'] ?? 0;
        const durationMs = result.duration * 1000 * k;
        const perMinute = (n: number): number => (durationMs > 0 ? Math.round((n / durationMs) * 60_000 * 10) / 10 : 0);
        resolve({
          connections,
          durationMs: Math.round(durationMs),
          answered,
          answeredRpm: perMinute(answered),
          okRpm: perMinute(ok),
          latencyMs: latency.count === 0 ? null : { p50: latency.percentileMs(50), p95: latency.percentileMs(95), p99: latency.percentileMs(99), max: latency.percentileMs(100) },
          status,
          http429,
          otherStatus: answered - ok - http429,
          // autocannon counts a timeout among its errors too.
          errors: Math.max(0, result.errors - result.timeouts),
          timeouts: result.timeouts + late,
        });
      },
    );
    options.signal?.addEventListener('abort', stop, { once: true });
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, wallMs: number) => {
      // Past the client deadline in model time: what a client holding to it would have counted as a timeout.
      if (wallMs * k > options.timeoutMs) {
        late++;
        return;
      }
      status[statusCode] = (status[statusCode] ?? 0) + 1;
      // A 429 is a refusal, answered at once: its speed says nothing of the service's.
      if (statusCode !== 429) latency.recordMs(wallMs * k);
    });
  });
}
