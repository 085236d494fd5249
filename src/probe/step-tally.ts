/**
 * What one probe step counted, answer by answer, as autocannon reports them: statuses, closed-loop latency
 * in model time (the mock's Server-Timing, the wall-clock overheads counted once, as a run counts them),
 * answers past the client deadline, malformed and too-large answers, and requests cut at the step's end.
 */
import type { AutocannonClient, Result } from 'autocannon';

import { parseJsonObject } from '../client/index.js';
import type { TimeScale } from '../core/index.js';
import { accountLatency } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';
import { parseModelLag, parseModelTime } from '../spec/index.js';
import { capAnswers } from './answer-cap.js';

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
  /**
   * Requests still unanswered when the step ended: their latency is unknown, so the percentiles leave the slowest out.
   */
  readonly cut: number;
}

/** The counts of one step, filled as autocannon's events come. */
export class StepTally {
  private readonly latency = MsHistogram.create();
  private readonly status: Record<string, number> = {};
  private late = 0;
  private malformed = 0;
  private tooLarge = 0;
  /** Counted here: autocannon's own `requests.sent` starts each paced connection at its rate. */
  private sent = 0;
  /**
   * Requests whose connection was closed or reset under them: autocannon reconnects and sends the next without a word.
   */
  private vanished = 0;
  /** Each connection's request awaiting its answer (one at a time): those still waiting when the step ends are cut. */
  private readonly pending: (() => number)[] = [];
  /**
   * The model time of the answer whose 'response' comes next: autocannon calls onResponse (with the
   * headers) and emits 'response' (with the time) one after the other, synchronously, for each answer.
   */
  private serverTiming: { serviceMs: number; lagMs: number } | undefined;
  private answerMalformed = false;

  constructor(
    private readonly scale: TimeScale,
    /** The client deadline of a request, model ms. */
    private readonly timeoutMs: number,
  ) {}

  /** Follows one connection: its request in flight, and answers cut at the cap. */
  watch(client: AutocannonClient): void {
    let waiting = 0;
    this.pending.push(() => waiting);
    client.on('request', () => {
      this.sent++;
      this.vanished += waiting;
      waiting = 1;
    });
    // A connection error is among autocannon's errors; a timeout among its timeouts.
    for (const settled of ['response', 'timeout', 'connError'] as const) client.on(settled, () => (waiting = 0));
    // An answer over the cap is settled as too_large: its connection is made again and sends the next.
    capAnswers(client, () => {
      this.tooLarge++;
      waiting = 0;
    });
  }

  /** An answer's status, body and headers (before its 'response'): whether it is malformed, and its Server-Timing. */
  readAnswer(status: number, body: string, headers: Record<string, string | string[]>): void {
    // A 2xx must carry a JSON object, as a run checks it: anything else is not an answer the client can use.
    this.answerMalformed = status >= 200 && status < 300 && parseJsonObject(body) === undefined;
    // autocannon keeps the names as the server wrote them.
    const header = !this.scale.isReal
      ? Object.entries(headers).find(([name]) => name.toLowerCase() === 'server-timing')?.[1]
      : undefined;
    const serviceMs = parseModelTime(header);
    this.serverTiming = serviceMs === undefined ? undefined : { serviceMs, lagMs: parseModelLag(header) ?? 0 };
  }

  /** An answer's 'response', `wallMs` after its request: counted by status, its latency in model time. */
  countAnswer(statusCode: number, wallMs: number): void {
    const timing = this.serverTiming;
    const bad = this.answerMalformed;
    this.serverTiming = undefined;
    this.answerMalformed = false;
    if (bad) {
      this.malformed++;
      return;
    }
    const scale = this.scale;
    const modelMs =
      timing === undefined
        ? scale.toModelMs(wallMs)
        : accountLatency(
            {
              intendedAtMs: 0,
              lastSentAtMs: 0,
              endAtMs: scale.toModelMs(wallMs),
              tries: [{ sentAtMs: 0, endAtMs: scale.toModelMs(wallMs), ...timing }],
            },
            scale.k,
          ).latencyMs;
    // Past the client deadline in model time: what a client holding to it would have counted as a timeout.
    if (modelMs > this.timeoutMs) {
      this.late++;
      return;
    }
    this.status[statusCode] = (this.status[statusCode] ?? 0) + 1;
    // A 429 is a refusal, answered at once: its speed says nothing of the service's.
    if (statusCode !== 429) this.latency.recordMs(modelMs);
  }

  /** The step, once autocannon has ended it with `result`. */
  step(connections: number, result: Result): ProbeStep {
    const { status, latency } = this;
    const answered = Object.values(status).reduce((sum, n) => sum + n, 0);
    const ok = Object.entries(status).reduce((sum, [s, n]) => (s.startsWith('2') ? sum + n : sum), 0);
    const http429 = status['429'] ?? 0;
    const durationMs = this.scale.toModelMs(result.duration * 1000);
    const perMinute = (n: number): number => (durationMs > 0 ? Math.round((n / durationMs) * 60_000 * 10) / 10 : 0);
    // autocannon counts a timeout among its errors too.
    const errors = Math.max(0, result.errors - result.timeouts) + this.vanished;
    const timeouts = result.timeouts + this.late;
    const cut = this.pending.reduce((n, waiting) => n + waiting(), 0);
    return {
      connections,
      durationMs: Math.round(durationMs),
      sent: this.sent,
      answered,
      answeredRpm: perMinute(answered),
      ok,
      okRpm: perMinute(ok),
      latencyMs:
        latency.count === 0
          ? null
          : {
              p50: latency.percentileMs(50),
              p95: latency.percentileMs(95),
              p99: latency.percentileMs(99),
              max: latency.percentileMs(100),
            },
      status,
      http429,
      otherStatus: answered - ok - http429,
      errors,
      timeouts,
      malformed: this.malformed,
      tooLarge: this.tooLarge,
      cut,
    };
  }
}
