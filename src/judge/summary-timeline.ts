/** summary.json's timeline: one row per window of the run, planned, sent and answered. */
import type { Plan } from '../plan/index.js';
import { ERROR_OUTCOMES, inFlightByWindow, type Recorder } from '../recorder/index.js';
import { LIMIT_429_CODES } from '../spec/index.js';
import { stats } from './summary-stats.js';

/** Planned arrivals per timeline window, by intended time. */
function plannedByWindow(plan: Plan, windowMs: number): number[] {
  const planned: number[] = [];
  for (const p of plan.phases)
    for (const t of p.arrivalsMs) planned[Math.floor(t / windowMs)] = (planned[Math.floor(t / windowMs)] ?? 0) + 1;
  return planned;
}

/**
 * 429 answers per window by when they were sent, by the limit that refused them, as their bodies named it (the spec's
 * two causes); `other` when a body named neither.
 */
function answers429ByWindow(recorder: Recorder, rows: number) {
  const answers429 = Array.from({ length: rows }, () => ({ rateLimit: 0, inFlight: 0, other: 0 }));
  const refused = recorder.attempts.refusedAttempts();
  const kindOf = refused.codes.map(
    (c) =>
      (c === LIMIT_429_CODES.rateLimit ? 'rateLimit' : c === LIMIT_429_CODES.inFlight ? 'inFlight' : 'other') as
        'rateLimit' | 'inFlight' | 'other',
  );
  refused.sentAtMs.forEach((t, j) => {
    const code = refused.code[j]!;
    answers429[Math.min(rows - 1, Math.floor(t / recorder.windowMs))]![code === 0 ? 'other' : kindOf[code - 1]!]++;
  });
  return answers429;
}

/**
 * One row per window of the run. Requests in flight and 429 answers count by when they happened (the
 * client's view), not by intended time: the rows reach the last answer, a retry's included.
 */
export function timelineRows(plan: Plan, recorder: Recorder) {
  const windowS = recorder.windowMs / 1000;
  const plannedPerWindow = plannedByWindow(plan, recorder.windowMs);
  const client = recorder.attempts.clientTimes();
  const rows = Math.max(recorder.timeline.length, Math.ceil((client.endAtMs.at(-1) ?? 0) / recorder.windowMs));
  const inFlight = inFlightByWindow(client.sentAtMs, client.endAtMs, recorder.windowMs, rows);
  const answers429 = answers429ByWindow(recorder, rows);
  return Array.from({ length: rows }, (_, i) => {
    const w = i < recorder.timeline.length ? recorder.timeline.window(i) : undefined;
    const lag = w === undefined ? undefined : stats(w.sendLag);
    return {
      startS: i * windowS,
      offeredRpm: ((plannedPerWindow[i] ?? 0) * 60) / windowS,
      sentRpm: ((w?.sent ?? 0) * 60) / windowS,
      answered: w === undefined ? 0 : w.sent - w.outcomes.abandoned - w.outcomes.stale_connection,
      ok: w?.outcomes.ok ?? 0,
      http429: w?.outcomes.http_429 ?? 0,
      http504: w?.outcomes.http_504 ?? 0,
      errors: w === undefined ? 0 : ERROR_OUTCOMES.reduce((sum, c) => sum + w.outcomes[c], 0) + w.outcomes.http_other,
      dropped: w?.dropped ?? 0,
      // The latency (summary.latencyDefinition), then the round trips it leaves out.
      latencyMs:
        w === undefined
          ? { p50: null, p95: null, p99: null }
          : ((s) => ({ p50: s.p50, p95: s.p95, p99: s.p99 }))(stats(w.latencyExcl429)),
      http429LatencyMs:
        w === undefined ? { p50: null, p95: null } : ((s) => ({ p50: s.p50, p95: s.p95 }))(stats(w.latency429)),
      sendLagMs: lag === undefined ? { p50: null, p99: null, max: null } : { p50: lag.p50, p99: lag.p99, max: lag.max },
      inFlight: { max: inFlight.max[i]!, mean: Math.round(inFlight.mean[i]! * 1000) / 1000 },
      answers429: answers429[i]!,
    };
  });
}
