/**
 * Latency in model time at time scale k. Raw times are wall time × k, so every wall
 * millisecond spent outside the modelled service — the generator's lag, the token wait, loopback
 * transport, HTTP parsing on both sides, a timer firing late — would count k times. The mock says in
 * Server-Timing (`svc`) how long each answer was in its modelled service, from its model's intended
 * times. So a request's model latency is
 *   Σ svc of its attempts + Σ the retry waits the client chose   (the model's own times, as they are)
 *   + Σ the whole time of attempts without svc                     (measured as without time scaling)
 *   + (the rest of the measured time, less Σ lag) ÷ k              (wall-clock overheads, counted once)
 * where `lag` (Server-Timing) is how long the mock held an answer after its model time because it runs
 * its model behind the real clock (src/mock/model-clock.ts): neither service nor an overhead.
 * and its service time (from the last attempt's send) likewise. At k = 1, or when no attempt carries
 * svc, both are the raw measurements. It assumes the overheads are real-time costs that a real
 * deployment pays once, and that the model's intended times are what a real service would take.
 */
import { TimeScale } from '../core/index.js';
import type { RecordedTry } from '../recorder/index.js';

/** One attempt as the events record it (model ms): only its times count. */
export type AccountedTry = Pick<RecordedTry, 'sentAtMs' | 'endAtMs' | 'serviceMs' | 'lagMs' | 'waitMs'>;

export interface AccountingInput {
  readonly intendedAtMs: number;
  readonly lastSentAtMs: number;
  readonly endAtMs: number;
  readonly tries: readonly AccountedTry[];
}

/** Latency (intended send → end) and service time (last send → end) in model ms, overheads counted once. */
interface AccountedLatency {
  readonly latencyMs: number;
  readonly serviceMs: number;
}

export function accountLatency(input: AccountingInput, timeScale: number): AccountedLatency {
  const rawLatencyMs = input.endAtMs - input.intendedAtMs;
  const rawServiceMs = input.endAtMs - input.lastSentAtMs;
  if (timeScale === 1 || !input.tries.some((t) => t.serviceMs !== undefined))
    return { latencyMs: rawLatencyMs, serviceMs: rawServiceMs };
  let modelMs = 0;
  let measuredMs = 0;
  let heldMs = 0;
  for (const t of input.tries) {
    modelMs += t.waitMs ?? 0;
    heldMs += t.lagMs ?? 0;
    if (t.serviceMs === undefined) measuredMs += t.endAtMs - t.sentAtMs;
    else modelMs += t.serviceMs;
  }
  const scale = TimeScale.of(timeScale, "the run's timeScale");
  const once = (totalMs: number, keptMs: number, lagMs: number): number =>
    keptMs + scale.toWallMs(Math.max(0, totalMs - keptMs - lagMs));
  const last = input.tries[input.tries.length - 1]!;
  const lastIsFinal = last.sentAtMs === input.lastSentAtMs;
  return {
    latencyMs: once(rawLatencyMs, modelMs + measuredMs, heldMs),
    serviceMs:
      lastIsFinal && last.serviceMs !== undefined ? once(rawServiceMs, last.serviceMs, last.lagMs ?? 0) : rawServiceMs,
  };
}
