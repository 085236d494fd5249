/**
 * summary.json: everything a run measured and decided, in model time, schema-versioned. Every
 * field is documented in the README ("Reports"). Histograms are included encoded (HDR, compressed
 * base64) so runs and shards can be merged and re-reported without the raw events.
 */
import type { EngineResult } from '../engine/index.js';
import type { GuardDecision } from '../guard/index.js';
import type { Plan } from '../plan/index.js';
import { ERROR_OUTCOMES, type HistogramSummary, type MsHistogram, type Recorder, type Slice } from '../recorder/index.js';
import type { EnvelopeJudgement, Verdict } from '../verdict/index.js';
import { GENERATOR_BUDGET } from '../verdict/index.js';

export const SUMMARY_SCHEMA_VERSION = 1;

/** Where the traffic went: the embedded mock, loadproof's mock at a loopback URL, another loopback server, or a real service. */
export type TargetKind = 'embedded-mock' | 'loadproof-mock' | 'loopback-stub' | 'real';

/** What ended the firing before the plan did: a stop signal (exit 130), or a failure (exit 4). */
export interface StopReason {
  readonly by: 'signal' | 'failure';
  /** The error code, e.g. INTERRUPTED, AUTH_FAILED, TARGET_UNREACHABLE. */
  readonly code: string;
  readonly message: string;
}

type Stats = { readonly [K in keyof HistogramSummary]: number | null };

const stats = (h: MsHistogram): Stats => {
  const s = h.summary();
  const clean = (v: number): number | null => (Number.isFinite(v) ? Math.round(v * 1000) / 1000 : null);
  return { count: s.count, p50: clean(s.p50), p90: clean(s.p90), p95: clean(s.p95), p99: clean(s.p99), max: clean(s.max), mean: clean(s.mean) };
};

function sliceFields(slice: Slice) {
  return {
    sent: slice.sent,
    dropped: slice.dropped,
    unsent: slice.unsent,
    attempts: slice.attempts,
    outcomes: { ...slice.outcomes },
    status: { ...slice.status },
    errors: Object.fromEntries(ERROR_OUTCOMES.map((c) => [c, slice.outcomes[c]])),
    latencyMs: stats(slice.latency),
    latency2xxMs: stats(slice.latency2xx),
    latencyExcl429Ms: stats(slice.latencyExcl429),
    serviceMs: stats(slice.service),
    sendLagMs: stats(slice.sendLag),
    retryAfterMs: stats(slice.retryAfter),
  };
}

export interface SummaryMeta {
  readonly environment: string;
  readonly baseUrl: string;
  readonly targetKind: TargetKind;
  readonly profile: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly engine: EngineResult;
  /** Why the firing ended early, or null when the plan ran to its end. */
  readonly stop: StopReason | null;
  readonly tokenCalls: number;
  readonly eventLoopDelayP99Ms: number | null;
  readonly guard: GuardDecision;
  /** The run's 429s judged against the rate-limit envelope. */
  readonly envelope: EnvelopeJudgement;
  /** The run folder's files (relative paths) and any write error. */
  readonly files: readonly { readonly file: string; readonly error: string | null }[];
  /** The process exit code this run ends with. */
  readonly exitCode: number;
}

export type Summary = ReturnType<typeof buildSummary>;

export function buildSummary(plan: Plan, recorder: Recorder, verdict: Verdict, meta: SummaryMeta) {
  const k = plan.timeScale;
  const phases = plan.phases.map((p, i) => {
    const slice = recorder.phases[i]!;
    const checks = verdict.checks.filter((c) => c.phase === p.name);
    const status = checks.some((c) => c.status === 'fail') ? 'fail' : checks.some((c) => c.status === 'inconclusive') ? 'inconclusive' : 'pass';
    return {
      name: p.name,
      startS: p.startMs / 1000,
      durationS: p.durationMs / 1000,
      warmupS: p.warmupMs / 1000,
      fromRpm: p.fromRpm,
      toRpm: p.toRpm,
      offeredRpm: p.offeredRpm,
      achievedRpm: Math.round((slice.sent / (p.durationMs / 60_000)) * 100) / 100,
      planned: p.arrivalsMs.length,
      ...sliceFields(slice),
      steadyLatencyMs: stats(recorder.steady[i]!.latencyExcl429),
      envelope: meta.envelope.phases[i]!,
      target: p.band === undefined ? null : { band: p.band.band, p95Ms: p.band.p95TargetMs },
      verdict: status,
    };
  });
  const windowS = recorder.windowMs / 1000;
  const plannedPerWindow: number[] = [];
  for (const p of plan.phases) for (const t of p.arrivalsMs) plannedPerWindow[Math.floor(t / recorder.windowMs)] = (plannedPerWindow[Math.floor(t / recorder.windowMs)] ?? 0) + 1;
  const timeline = recorder.windows.map((w, i) => ({
    startS: i * windowS,
    offeredRpm: ((plannedPerWindow[i] ?? 0) * 60) / windowS,
    sentRpm: (w.sent * 60) / windowS,
    answered: w.latency.count,
    ok: w.outcomes.ok,
    http429: w.outcomes.http_429,
    http504: w.outcomes.http_504,
    errors: ERROR_OUTCOMES.reduce((sum, c) => sum + w.outcomes[c], 0) + w.outcomes.http_other,
    dropped: w.dropped,
    latencyMs: { p50: stats(w.latency).p50, p95: stats(w.latency).p95, p99: stats(w.latency).p99 },
  }));
  const lag = recorder.overall.sendLag.summary();
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    scenario: plan.scenario.name,
    description: plan.scenario.description,
    environment: meta.environment,
    target: { baseUrl: meta.baseUrl, kind: meta.targetKind, embeddedMock: meta.targetKind === 'embedded-mock', profile: meta.profile },
    timeScale: k,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    modelDurationS: meta.engine.elapsedMs / 1000,
    interrupted: meta.engine.interrupted,
    stopped: meta.stop,
    exitCode: meta.exitCode,
    files: meta.files,
    guard: { allowed: meta.guard.allowed, real: meta.guard.real, startAt: meta.guard.startAt, plannedEndAt: meta.guard.plannedEndAt, traffic: meta.guard.traffic, limits: meta.guard.limits, checks: meta.guard.checks },
    verdict: { status: verdict.status, reasons: verdict.reasons, notes: verdict.notes, checks: verdict.checks },
    envelope: {
      marginTokens: meta.envelope.marginTokens,
      uncertaintyMs: meta.envelope.uncertaintyMs,
      slowest429Ms: meta.envelope.slowest429Ms,
      maxSendLagMs: meta.envelope.maxSendLagMs,
      capacityTokens: meta.envelope.capacityTokens,
      refillRpm: meta.envelope.refillRpm,
    },
    counts: {
      planned: plan.arrivals,
      fired: meta.engine.fired,
      sent: recorder.overall.sent,
      dropped: recorder.overall.dropped,
      unsent: recorder.overall.unsent,
      abandoned: recorder.overall.outcomes.abandoned,
    },
    phases,
    overall: {
      name: 'overall',
      durationS: plan.durationMs / 1000,
      offeredRpm: Math.round((plan.arrivals / (plan.durationMs / 60_000)) * 100) / 100,
      achievedRpm: Math.round((recorder.overall.sent / (plan.durationMs / 60_000)) * 100) / 100,
      planned: plan.arrivals,
      ...sliceFields(recorder.overall),
      target: null,
      verdict: verdict.status,
    },
    timeline,
    token: { calls: meta.tokenCalls, latencyMs: stats(recorder.tokenLatency) },
    generator: {
      sendLagMs: { p99: Number.isFinite(lag.p99) ? lag.p99 : null, max: Number.isFinite(lag.max) ? lag.max : null },
      sendLagWallMs: { p99: Number.isFinite(lag.p99) ? lag.p99 / k : null, max: Number.isFinite(lag.max) ? lag.max / k : null },
      eventLoopDelayP99Ms: meta.eventLoopDelayP99Ms,
      budget: GENERATOR_BUDGET,
    },
    histograms: {
      overall: { latency: recorder.overall.latency.encode(), service: recorder.overall.service.encode(), sendLag: recorder.overall.sendLag.encode() },
      phases: recorder.phases.map((s) => ({ latency: s.latency.encode(), service: s.service.encode(), sendLag: s.sendLag.encode() })),
    },
  };
}
