/**
 * Tells when the target has stopped answering, so a run against a dead service ends as a failure
 * (exit 4) instead of a verdict on traffic that never reached it. The target is taken as gone when,
 * for a whole minute of model time (the period of the spec's rate limits) and over at least 10
 * requests in a row, every request that ended got no HTTP answer at all: refused, reset (or stale connection),
 * timed out or failed in transport. Any HTTP answer (a 500 or a 429 included) shows it is there, and starts
 * the count again. A restart of a few seconds, or a burst of resets, is recorded and judged, not
 * fatal. Times are the requests' own (model ms), so the decision does not depend on the machine; at time
 * scale k the silence must also last 5 s of wall time (TARGET_GONE.minWallSilenceMs).
 */
import { formatMs, TimeScale } from '../core/index.js';
import type { EventRecord } from '../judge/index.js';

/**
 * silenceMs: model ms; minWallSilenceMs: wall ms the silence must also last, so that at time scale k (a model
 * minute is 60 ÷ k wall seconds: one at k = 60) a stall of a busy machine is not taken for a dead target.
 */
const TARGET_GONE = { silenceMs: 60_000, minWallSilenceMs: 5_000, failuresInRow: 10 } as const;

const NO_ANSWER: ReadonlySet<string> = new Set(['timeout', 'reset', 'refused', 'error', 'stale_connection']);

export class TargetWatch {
  private lastAnswerEndMs = Number.NEGATIVE_INFINITY;
  /** When the silence began: the send of the first request after the last answer that got none. */
  private silentSinceMs: number | undefined;
  private readonly failures = new Map<string, number>();
  private failuresInRow = 0;
  /** Model ms of silence that take the target as gone at this time scale. */
  private readonly silenceMs: number;

  /** `scale`: the run's time scale (model time = k × wall time). */
  constructor(scale: TimeScale = TimeScale.REAL) {
    this.silenceMs = Math.max(TARGET_GONE.silenceMs, scale.toModelMs(TARGET_GONE.minWallSilenceMs));
  }

  /** Takes one finished request; returns why the target is taken as gone, once it is. */
  observe(record: EventRecord): string | undefined {
    if (record.endAtMs === null) return undefined;
    if (record.status !== null) {
      if (record.endAtMs >= this.lastAnswerEndMs) {
        this.lastAnswerEndMs = record.endAtMs;
        this.silentSinceMs = undefined;
        this.failuresInRow = 0;
        this.failures.clear();
      }
      return undefined;
    }
    if (!NO_ANSWER.has(record.outcome) || record.endAtMs < this.lastAnswerEndMs) return undefined;
    this.silentSinceMs ??= Math.max(this.lastAnswerEndMs, record.lastSentAtMs ?? record.endAtMs);
    this.failuresInRow++;
    this.failures.set(record.outcome, (this.failures.get(record.outcome) ?? 0) + 1);
    const silentForMs = record.endAtMs - this.silentSinceMs;
    if (this.failuresInRow < TARGET_GONE.failuresInRow || silentForMs < this.silenceMs) return undefined;
    const how = [...this.failures].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
    return `the target stopped answering: no HTTP answer for ${formatMs(silentForMs)} of model time, and the ${this.failuresInRow} requests that ended since got none (${how}); the run was stopped`;
  }

  /**
   * At the end of a run that was not stopped: the target is taken as gone when the last 10 or more
   * requests all ended without an HTTP answer and nothing answered after them — it died too close to
   * the end of the plan for a whole minute of silence.
   */
  atEnd(): string | undefined {
    if (this.failuresInRow < TARGET_GONE.failuresInRow) return undefined;
    const how = [...this.failures].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
    return `the target stopped answering: the last ${this.failuresInRow} requests of the run got no HTTP answer (${how}), and none answered after them`;
  }
}
