/**
 * summary.json: everything a run measured and decided, in model time, schema-versioned. Every
 * field is documented in docs/guides/evidence-for-support.md ("Reports"). Histograms are included encoded (HDR,
 * compressed base64) so runs and shards can be merged and re-reported. It is a pure function of the plan, the
 * run record and the events (through the Recorder): `loadproof report` rebuilds it from a run folder.
 */
import { isUnanswered, TimeScale } from '../core/index.js';
import { documentsHeld, type Plan } from '../plan/index.js';
import { ERROR_OUTCOMES, LATENCY_DEFINITION, MsHistogram, type Recorder, type Slice } from '../recorder/index.js';
import { type DocumentSink, documentSliceSummary, documentTimeline } from './documents.js';
import type { EnvelopeJudgement } from './envelope.js';
import { GENERATOR_BUDGET } from './generator-budget.js';
import { phiSummary } from './phi-summary.js';
import type { RunEnd, RunRecord } from './run-record.js';
import { capacitySummary, first429Summary } from './summary-capacity.js';
import { stats } from './summary-stats.js';
import { timelineRows } from './summary-timeline.js';
import { inTargetWords } from './target-words.js';
import type { TopError } from './top-errors.js';
import type { Verdict } from './verdict.js';

const SUMMARY_SCHEMA_VERSION = 5;

/** What every latency field means, in summary.json itself: a reader needs no other document. */
const SUMMARY_LATENCY_DEFINITION = `${LATENCY_DEFINITION}. steadyLatencyMs: the same, of the requests intended after their phase's warm-up (what the p95 checks judge). http429LatencyMs: the round trips left out. Times are model time, except the fields ending in WallMs, generator.eventLoopDelay…Ms and startLateMs (wall time).`;

const shown = <T extends number | null>(v: T): T | 'unanswered' => (v !== null && isUnanswered(v) ? 'unanswered' : v);

/**
 * The offered rate times the share sent of the requests planned before the run stopped (rpm, 2 decimals): the offered
 * rate when every one went out. Requests never sent because the run stopped first (unsent) are not in the share.
 */
const achievedRpm = (offeredRpm: number, sent: number, planned: number): number =>
  planned === 0 ? 0 : Math.round(((offeredRpm * sent) / planned) * 100) / 100;

/**
 * Goodput: the requests answered 2xx a minute of model time (2 decimals), counted by the period their requests were
 * planned in. Beside the offered rate it shows what the service accepted: a plateau while the offered rate climbs is
 * the rate limit.
 */
const goodputRpm = (ok: number, durationMs: number): number | null =>
  durationMs <= 0 ? null : Math.round((ok / (durationMs / 60_000)) * 100) / 100;

/**
 * The model ms a phase was offered for: all of it, or, when the run stopped first (unsent requests), up to its first
 * unsent arrival. Arrivals fire in time order, so the unsent ones are the tail; a phase never reached ran 0 ms.
 */
const ranMs = (p: { startMs: number; durationMs: number; arrivalsMs: ArrayLike<number> }, unsent: number): number =>
  unsent === 0
    ? p.durationMs
    : unsent >= p.arrivalsMs.length
      ? 0
      : Math.min(p.durationMs, Math.max(0, p.arrivalsMs[p.arrivalsMs.length - unsent]! - p.startMs));

/** Sent ÷ planned (4 decimals); null when nothing was planned. */
const sentOfPlanned = (sent: number, planned: number): number | null =>
  planned === 0 ? null : Math.round((sent / planned) * 10_000) / 10_000;

function sliceFields(slice: Slice) {
  return {
    sent: slice.sent,
    dropped: slice.dropped,
    unsent: slice.unsent,
    attempts: slice.attempts,
    outcomes: { ...slice.outcomes },
    status: { ...slice.status },
    errors: Object.fromEntries(ERROR_OUTCOMES.map((c) => [c, slice.outcomes[c]])),
    unanswered: slice.unanswered,
    // The latency (summary.latencyDefinition), warm-up included; steadyLatencyMs is what the checks judge.
    latencyMs: stats(slice.latencyExcl429),
    latency2xxMs: stats(slice.latency2xx),
    // The round trips of the requests answered 429 at once, left out of latencyMs.
    http429LatencyMs: stats(slice.latency429),
    // Service time (last send → answer) of the same requests as latencyMs.
    serviceMs: stats(slice.serviceExcl429),
    sendLagMs: stats(slice.sendLag),
    retryAfterMs: stats(slice.retryAfter),
    // 429 answers without the Retry-After the spec requires (whole seconds): the verdict's notes say it.
    http429WithoutRetryAfter: slice.http429WithoutRetryAfter,
  };
}

interface SummaryMeta {
  readonly run: RunRecord;
  /** mode deid: the documents through the chain. */
  readonly documents?: DocumentSink | undefined;
  /** The run's end: as recorded, or as far as the events tell for a partial run. */
  readonly end: RunEnd;
  /** The run did not record its end (a second Ctrl-C, a crash, a kill): judged from the events it wrote. */
  readonly partial: boolean;
  /** The run's 429s judged against the rate-limit envelope. */
  readonly envelope: EnvelopeJudgement;
  /** The run folder's files (relative paths) and any write error. */
  readonly files: readonly { readonly file: string; readonly error: string | null }[];
  /** The process exit code this run ends with. */
  readonly exitCode: number;
  /** When this summary was made (the only field that differs when a run is judged again). */
  readonly reportedAt: string;
  /** The loadproof version that judged it. */
  readonly judgedBy: string;
  /** The largest groups of failed requests, each with a sample of what was said. */
  readonly topErrors: readonly TopError[];
  /** Failed requests past the groups a run tells apart: in no group of topErrors. */
  readonly topErrorsNotGrouped: number;
}

export type Summary = ReturnType<typeof buildSummary>;

export function buildSummary(plan: Plan, recorder: Recorder, verdict: Verdict, meta: SummaryMeta) {
  const scale = TimeScale.of(plan.timeScale, "the plan's timeScale");
  const phases = phaseSummaries(plan, recorder, verdict, meta.envelope);
  return {
    schemaVersion: SUMMARY_SCHEMA_VERSION,
    latencyDefinition: SUMMARY_LATENCY_DEFINITION,
    scenario: plan.scenario.name,
    description: plan.scenario.description,
    loadproofVersion: meta.run.loadproofVersion,
    judgedBy: meta.judgedBy,
    planIdentity: meta.run.planIdentity,
    environment: meta.run.environment,
    target: { ...meta.run.target, embeddedMock: meta.run.target.kind === 'embedded-mock' },
    timeScale: scale.k,
    /**
     * `--shard i/n`: this run sent shard i of n of the plan, and its verdict is of that share only (the test's is
     * `loadproof merge`'s); null otherwise.
     */
    shard: meta.run.shard ?? null,
    /** `loadproof merge`: the shards this folder was merged from; null otherwise. */
    mergedFrom: meta.run.mergedFrom ?? null,
    startAt: meta.run.startAt ?? null,
    /**
     * `--start-at`: how late the schedule started after it (wall ms; for a merge, the latest shard's); null without
     * one.
     */
    startLateMs: meta.end.startLateMs ?? null,
    startedAt: meta.run.startedAt,
    endedAt: meta.end.endedAt,
    reportedAt: meta.reportedAt,
    partial: meta.partial,
    modelDurationS: meta.end.engine.elapsedMs / 1000,
    interrupted: meta.end.engine.interrupted,
    stopped: meta.end.stop,
    // The first redirect the service answered (never followed; counted as its status), as the run said it; or null.
    firstRedirect: meta.end.firstRedirect ?? null,
    exitCode: meta.exitCode,
    files: meta.files,
    guard: meta.run.guard,
    verdict: verdictSummary(verdict, meta.run),
    envelope: {
      marginTokens: meta.envelope.marginTokens,
      capacityTokens: meta.envelope.capacityTokens,
      refillRpm: meta.envelope.refillRpm,
      // What the bucket was judged to hold at the run's first send, and why (every 429's reason says it too).
      start: meta.envelope.start,
    },
    counts: countsSummary(plan, recorder, meta.end),
    phases,
    overall: overallSummary(plan, recorder, verdict),
    topErrors: meta.topErrors,
    topErrorsNotGrouped: meta.topErrorsNotGrouped,
    // A run that steps the rate up: the highest rate served within its target, the goodput plateau, the first 429.
    capacity: capacitySummary(verdict, phases, meta.run.capacity429Share ?? 0),
    // The first 429: when, and the bucket's state then, replayed over what the service admitted; null without one.
    first429: first429Summary(plan, recorder, meta.envelope),
    timeline: timelineRows(plan, recorder),
    token: { calls: meta.end.tokenCalls, latencyMs: stats(MsHistogram.decode(meta.end.tokenLatency)) },
    // The texts sent, by size (never the texts); null when the run did not record it.
    payload: meta.end.payload ?? null,
    // mode deid: each document through the chain (identification's own figures are the phases' above).
    deid: meta.documents === undefined ? null : deidSummary(plan, meta.documents),
    // mode deid: what became of the documents' known PHI; null without ground truth.
    phi:
      meta.documents === undefined
        ? null
        : phiSummary(
            plan.phases.map((p) => p.name),
            meta.documents,
          ),
    generator: generatorSummary(recorder, scale, meta.end),
    histograms: histogramsOf(recorder),
  };
}

/** HDR histograms, encoded: runs and shards are merged and re-reported from them without the raw events. */
function histogramsOf(recorder: Recorder) {
  return {
    overall: {
      latency: recorder.overall.latencyExcl429.encode(),
      // What the tables show (after each phase's warm-up): the latency-distribution chart draws it.
      steadyLatency: recorder.steadyOverall.latencyExcl429.encode(),
      http429Latency: recorder.overall.latency429.encode(),
      service: recorder.overall.serviceExcl429.encode(),
      sendLag: recorder.overall.sendLag.encode(),
    },
    phases: recorder.phases.map((s, i) => ({
      latency: s.latencyExcl429.encode(),
      steadyLatency: recorder.steady[i]!.latencyExcl429.encode(),
      service: s.serviceExcl429.encode(),
      sendLag: s.sendLag.encode(),
    })),
  };
}

/**
 * The verdict as summary.json shows it: a percentile that falls on an unanswered request reads "unanswered", not its
 * stand-in value; the reasons say who a finding is against (the mock, when the run met one), as the reports do.
 */
function verdictSummary(verdict: Verdict, run: RunRecord) {
  const words = (text: string): string => inTargetWords(run, text);
  return {
    status: verdict.status,
    reasons: verdict.reasons.map(words),
    notes: verdict.notes.map(words),
    checks: verdict.checks.map((c) => ({
      ...c,
      reason: words(c.reason),
      observed: shown(c.observed),
      interval: c.interval === null ? null : c.interval.map(shown),
    })),
  };
}

/** The plan's requests by what became of them. */
function countsSummary(plan: Plan, recorder: Recorder, end: RunEnd) {
  return {
    planned: plan.arrivals,
    fired: end.engine.fired,
    sent: recorder.overall.sent,
    dropped: recorder.overall.dropped,
    unsent: recorder.overall.unsent,
    abandoned: recorder.overall.outcomes.abandoned,
    // Planned requests without a line in events.ndjson: 0 unless the run ended without recording them (partial).
    unrecorded: plan.arrivals - recorder.overall.sent - recorder.overall.dropped - recorder.overall.unsent,
  };
}

/** Each phase: its plan, what its requests became, its load bands and its verdict (the worst of its checks). */
function phaseSummaries(plan: Plan, recorder: Recorder, verdict: Verdict, envelope: EnvelopeJudgement) {
  return plan.phases.map((p, i) => {
    const slice = recorder.phases[i]!;
    const checks = verdict.checks.filter((c) => c.phase === p.name);
    const status = checks.some((c) => c.status === 'fail')
      ? 'fail'
      : checks.some((c) => c.status === 'inconclusive')
        ? 'inconclusive'
        : 'pass';
    return {
      name: p.name,
      startS: p.startMs / 1000,
      durationS: p.durationMs / 1000,
      warmupS: p.warmupMs / 1000,
      fromRpm: p.fromRpm,
      toRpm: p.toRpm,
      // Rounded: a deid phase's rate is documents × pieces, which floating point leaves as 62.400000000000006.
      offeredRpm: Math.round(p.offeredRpm * 1000) / 1000,
      // Against the plan, not the phase length: a Poisson phase that planned 423 of a nominal 450 and sent them all
      // achieved its rate.
      achievedRpm: achievedRpm(p.offeredRpm, slice.sent, p.arrivalsMs.length - slice.unsent),
      // Over the time the phase ran: a run stopped early served its requests at their rate, not at a fraction of it.
      goodputRpm: goodputRpm(slice.outcomes.ok, ranMs(p, slice.unsent)),
      sentOfPlanned: sentOfPlanned(slice.sent, p.arrivalsMs.length),
      planned: p.arrivalsMs.length,
      ...sliceFields(slice),
      steadyLatencyMs: stats(recorder.steady[i]!.latencyExcl429),
      envelope: envelope.phases[i]!,
      // The phase's one target, or null when it has none or (a ramp across bands) several: see bands.
      target:
        p.bands.length === 1 && p.bands[0]!.band !== undefined
          ? { band: p.bands[0]!.band.band, p95Ms: p.bands[0]!.band.p95TargetMs }
          : null,
      bands: p.bands.map((b, j) => ({
        band: b.band?.band ?? null,
        p95Ms: b.band?.p95TargetMs ?? null,
        fromRpm: Math.round(b.fromRpm * 100) / 100,
        toRpm: Math.round(b.toRpm * 100) / 100,
        startS: b.startMs / 1000,
        endS: b.endMs / 1000,
        planned: b.arrivals,
        steadyPlanned: b.steadyArrivals,
        steadyLatencyMs: stats(recorder.steadyBands[i]![j]!.latencyExcl429),
      })),
      verdict: status,
    };
  });
}

/** The whole run as one phase row. */
function overallSummary(plan: Plan, recorder: Recorder, verdict: Verdict) {
  return {
    name: 'overall',
    durationS: plan.durationMs / 1000,
    offeredRpm: Math.round((plan.arrivals / (plan.durationMs / 60_000)) * 100) / 100,
    achievedRpm: achievedRpm(
      plan.arrivals / (plan.durationMs / 60_000),
      recorder.overall.sent,
      plan.arrivals - recorder.overall.unsent,
    ),
    goodputRpm: goodputRpm(
      recorder.overall.outcomes.ok,
      plan.phases.reduce((sum, p, i) => sum + ranMs(p, recorder.phases[i]!.unsent), 0),
    ),
    sentOfPlanned: sentOfPlanned(recorder.overall.sent, plan.arrivals),
    planned: plan.arrivals,
    ...sliceFields(recorder.overall),
    // Every phase's steady state together: the tables' overall row.
    steadyLatencyMs: stats(recorder.steadyOverall.latencyExcl429),
    target: null,
    verdict: verdict.status,
  };
}

/**
 * How late the generator was: its send lag in model and wall time, its event loop's delay, and the budget judged
 * against.
 */
function generatorSummary(recorder: Recorder, scale: TimeScale, end: RunEnd) {
  const lag = recorder.overall.sendLag.summary();
  return {
    sendLagMs: { p99: Number.isFinite(lag.p99) ? lag.p99 : null, max: Number.isFinite(lag.max) ? lag.max : null },
    sendLagWallMs: {
      p99: Number.isFinite(lag.p99) ? scale.toWallMs(lag.p99) : null,
      max: Number.isFinite(lag.max) ? scale.toWallMs(lag.max) : null,
    },
    eventLoopDelayP99Ms: end.eventLoopDelayP99Ms,
    eventLoopDelayMaxMs: end.eventLoopDelayMaxMs,
    ...(end.mockLag === undefined ? {} : { mockLag: end.mockLag }),
    budget: GENERATOR_BUDGET,
  };
}

/** The chain's figures: documents per phase (planned, ok, failed by stage), end-to-end and obfuscation latency. */
function deidSummary(plan: Plan, documents: DocumentSink) {
  return {
    mode: 'deid' as const,
    style: plan.scenario.deid.style,
    concurrency: plan.scenario.deid.concurrency,
    phases: plan.phases.map((p, i) => ({
      name: p.name,
      planned: p.documents?.count ?? 0,
      documentRpm: p.documents === undefined ? null : (p.documents.fromRpm + p.documents.toRpm) / 2,
      ...documentSliceSummary(documents.phases[i]!, documents.steady[i]!),
    })),
    // A deid shard plans its own documents, not the whole plan's.
    overall: { planned: documentsHeld(plan), ...documentSliceSummary(documents.overall) },
    // Per window of the run's timeline, by the documents' intended times.
    timeline: documentTimeline(documents),
  };
}
