/**
 * loadproof's latency against the gateway's own clock, request by request (matched by x-loadproof-seq), at time
 * scale 1 where both are wall time. What each side measures, for one request:
 *   loadproof's latency  = send lag (intended → written) + service time (written → answer read)
 *   nginx's $request_time = first request bytes read → last answer bytes written (ms resolution, its cached clock)
 * So loadproof's latency is never less than nginx's (1 ms for nginx's rounding), and its service time exceeds
 * nginx's by loopback transport plus the moments either process was not running: loadproof's (its event loop
 * was busy or the process waited for a core: what its event-loop delay records) and nginx's (recorded nowhere).
 * On a busy 2-core machine any single request can meet a long wait of nginx's, so the upper bounds are on
 * statistics: the median request's excess is within loadproof's own event-loop delay (p99) plus a few ms, and
 * each percentile of loadproof's latency exceeds nginx's by no more than its largest recorded send lag and
 * event-loop delay plus a few ms (what holds for each request bounds every percentile).
 */
import { expect } from 'vitest';

import type { GatewayLine } from './access-log.js';
import { identificationLines } from './reconcile.js';

/** Transport on loopback, nginx's ms rounding and its cached clock: a few ms on a busy machine. */
const TOLERANCE_MS = 5;

/** One answered request, both sides, wall ms. */
interface Pair {
  readonly seq: number;
  readonly latencyMs: number;
  readonly sendLagMs: number;
  readonly serviceMs: number;
  readonly gatewayMs: number;
}

/** The requests answered on their first attempt, with the gateway's line for that attempt. */
function pairs(events: readonly any[], lines: readonly GatewayLine[]): Pair[] {
  const logged = new Map(identificationLines(lines).map((l) => [`${l.seq}/${l.attempt}`, l.totalMs]));
  const found: Pair[] = [];
  for (const e of events) {
    const gatewayMs = logged.get(`${e.seq}/1`);
    if (e.attempts !== 1 || e.status === null || gatewayMs === undefined) continue;
    const sentAtMs = e.tries[0].sentAtMs;
    found.push({
      seq: e.seq,
      latencyMs: e.latencyMs,
      sendLagMs: sentAtMs - e.intendedAtMs,
      serviceMs: e.tries[0].endAtMs - sentAtMs,
      gatewayMs,
    });
  }
  return found;
}

/** Nearest-rank percentile (q in 0–100) of `values`. */
function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((q / 100) * sorted.length) - 1)]!;
}

/** The figures a latency-truth test asserts on, and prints (the evidence of how close the two clocks agree). */
function latencyTruth(summary: any, events: readonly any[], lines: readonly GatewayLine[]) {
  const matched = pairs(events, lines);
  const gateway = matched.map((p) => p.gatewayMs);
  const generator = summary.generator;
  return {
    matched,
    /** Requests where loadproof's latency is less than the gateway's time (beyond its 1 ms rounding). */
    shorterThanGateway: matched.filter((p) => p.latencyMs < p.gatewayMs - 1),
    medianExcessMs: percentile(
      matched.map((p) => p.serviceMs - p.gatewayMs),
      50,
    ),
    medianBoundMs: generator.eventLoopDelayP99Ms + TOLERANCE_MS,
    p50: { loadproof: summary.overall.latencyMs.p50, gateway: percentile(gateway, 50) },
    p95: { loadproof: summary.overall.latencyMs.p95, gateway: percentile(gateway, 95) },
    percentileBoundMs: generator.sendLagWallMs.max + generator.eventLoopDelayMaxMs + TOLERANCE_MS,
  };
}

/**
 * A run at time scale 1 through nginx: every request answered and in nginx's log, none shorter than nginx's own
 * time for it, and loadproof's excess over nginx within the bounds above. Prints the figures.
 */
export function expectLatencyTruth(run: { summary: any; events: any[] }, lines: readonly GatewayLine[]): void {
  const { matched, shorterThanGateway, medianExcessMs, medianBoundMs, p50, p95, percentileBoundMs } = latencyTruth(
    run.summary,
    run.events,
    lines,
  );
  console.info(
    `latency truth: ${matched.length} requests; loadproof − nginx p50 ${(p50.loadproof - p50.gateway).toFixed(1)} ms, ` +
      `p95 ${(p95.loadproof - p95.gateway).toFixed(1)} ms (bound ${percentileBoundMs.toFixed(1)} ms); ` +
      `median service-time excess ${medianExcessMs.toFixed(1)} ms (bound ${medianBoundMs.toFixed(1)} ms)`,
  );
  expect(matched.length).toBe(run.summary.counts.planned);
  expect(shorterThanGateway).toEqual([]);
  expect(medianExcessMs).toBeLessThanOrEqual(medianBoundMs);
  for (const p of [p50, p95]) {
    expect(p.loadproof).toBeGreaterThanOrEqual(p.gateway - 1);
    expect(p.loadproof - p.gateway).toBeLessThanOrEqual(percentileBoundMs);
  }
}
