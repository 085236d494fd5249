/**
 * The judge: (plan, run record, events) → verdict, exit code and summary.json, with nothing read
 * from a clock or a socket. The live run and `loadproof report` both come through here, fed the
 * same event records (the live run in memory as they complete, the report from events.ndjson), so
 * judging a finished run again gives the same summary, apart from `reportedAt`.
 */
import { EXIT, TimeScale } from '../core/index.js';
import { effectiveLimits, endsInclusive, holdsSeq, maxInFlightOf, type Plan, positionOfSeq } from '../plan/index.js';
import { MsHistogram, Recorder, type Slice } from '../recorder/index.js';
import { bucketStartOf } from './bucket-start.js';
import { DocumentSink, type DocumentSlice } from './documents.js';
import { envelopeFindings, sharedEnvelope } from './envelope.js';
import { type EventRecord, toRecordable } from './events.js';
import { generatorHealth } from './generator-budget.js';
import type { RunEnd, RunRecord } from './run-record.js';
import { buildSummary, type Summary } from './summary.js';
import { ErrorTally } from './top-errors.js';
import { evaluateVerdict, type Verdict } from './verdict.js';
import type { PhaseInput } from './verdict-input.js';

/** Feeds event records to a Recorder shaped by the plan; what both the live run and the report use. */
export class EventSink {
  readonly recorder: Recorder;
  /** mode deid: the documents (documents.ndjson); undefined otherwise. */
  readonly documents: DocumentSink | undefined;
  /** The failed requests by group, for the "top errors" table. */
  readonly errors = new ErrorTally();
  private readonly phaseIndex: ReadonlyMap<string, number>;
  /** The latest time any event mentions (model ms): how far a partial run got. */
  lastMs = 0;

  constructor(private readonly plan: Plan) {
    this.recorder = new Recorder(
      plan.phases.map((p) => {
        const steadyFromMs = p.startMs + p.warmupMs;
        return {
          steady: { fromMs: steadyFromMs, toMs: p.startMs + p.durationMs },
          bands: p.bands.map((b) => ({
            fromMs: Math.max(b.startMs, steadyFromMs),
            toMs: b.endMs,
            endInclusive: endsInclusive(b),
          })),
        };
      }),
      plan.scenario.windowMs,
    );
    this.phaseIndex = new Map(plan.phases.map((p) => [p.name, p.index]));
    this.documents =
      plan.documents === undefined
        ? undefined
        : new DocumentSink(
            plan.phases.map((p) => ({
              name: p.name,
              steady: { fromMs: p.startMs + p.warmupMs, toMs: p.startMs + p.durationMs },
            })),
            plan.scenario.windowMs,
          );
  }

  get plannedRequests(): number {
    return this.plan.arrivals;
  }

  /** Where `seq` (of the whole plan) sits among the plan's requests (a shard holds every n-th). */
  positionOf(seq: number): number {
    return positionOfSeq(this.plan, seq);
  }

  /** Records one event; throws when it does not belong to the plan (a wrong phase or position). */
  add(record: EventRecord): void {
    const phase = this.phaseIndex.get(record.phase);
    if (phase === undefined) throw new Error(`phase ${JSON.stringify(record.phase)} is not in the plan`);
    if (!holdsSeq(this.plan, record.seq)) {
      const shard = this.plan.shard;
      throw new Error(
        shard === undefined
          ? `seq ${record.seq} is beyond the plan's ${this.plan.arrivals} requests`
          : `seq ${record.seq} is not one of shard ${shard.index}/${shard.count}'s ${this.plan.arrivals} requests`,
      );
    }
    this.recorder.record(toRecordable(record, phase, this.plan.timeScale));
    this.errors.add(record);
    this.lastMs = Math.max(this.lastMs, record.intendedAtMs, record.firedAtMs ?? 0, record.endAtMs ?? 0);
  }
}

/**
 * The loosest latency target a phase is held to: its bands' documented ones, its percentile thresholds, else the client
 * timeout.
 */
function latencyTargetMs(plan: Plan, phase: number): number {
  const p = plan.phases[phase]!;
  const s = plan.scenario;
  const targets = [
    ...(s.thresholds.documentedTargets
      ? p.bands.flatMap((b) => (b.band === undefined ? [] : [b.band.p95TargetMs]))
      : []),
    ...[...s.thresholds.all, ...(s.thresholds.byPhase.get(p.name) ?? [])].flatMap((t) =>
      t.kind === 'percentile' && t.stage === undefined && (t.op === '<' || t.op === '<=') ? [t.valueMs] : [],
    ),
  ];
  return targets.length === 0 ? s.timeoutMs : Math.max(...targets);
}

/** A phase's steady documents as the verdict's stage thresholds read them. */
function stageInputs(d: DocumentSlice): NonNullable<PhaseInput['stages']> {
  const o = d.obfuscationOutcomes;
  const fivexx = Object.entries(d.obfuscationStatus).reduce(
    (sum, [status, n]) => (Number(status) >= 500 ? sum + n : sum),
    0,
  );
  return {
    obfuscation: {
      latency: { all: d.obfuscationLatency, blocks: d.obfuscationLatencyBlocks },
      counts: {
        total: d.obfuscationCalls,
        http_429: o.http_429 ?? 0,
        http_504: o.http_504 ?? 0,
        http_5xx: fivexx,
        errors: d.obfuscationCalls - (o.ok ?? 0) - (o.http_429 ?? 0),
      },
    },
    document: {
      latency: { all: d.latency, blocks: d.latencyBlocks },
      counts: {
        total: d.documents - d.unsent,
        http_429: 0,
        http_504: 0,
        http_5xx: 0,
        errors: d.failedIdentification + d.failedObfuscation,
      },
    },
  };
}

export interface Judgement {
  readonly verdict: Verdict;
  readonly exitCode: number;
  readonly summary: Summary;
}

interface JudgeInput {
  readonly run: RunRecord;
  readonly end: RunEnd;
  readonly partial: boolean;
  /** Output files and their write errors, beyond those the run end records. */
  readonly moreFiles?: readonly { readonly file: string; readonly error: string | null }[];
  readonly reportedAt: string;
  /** The loadproof version judging (the run's own may differ when a folder is judged again by another). */
  readonly judgedBy: string;
}

/** The answered requests' mean time in their client slot beyond their latency (model ms), 0 for none. */
/** The answered requests' mean holding beyond their latency (model ms); the run's when the slice answered none. */
const meanHeld = (slice: Slice, run?: Slice): number =>
  slice.heldBeyondLatencyCount === 0 && run !== undefined
    ? meanHeld(run)
    : slice.heldBeyondLatencyMs / Math.max(1, slice.heldBeyondLatencyCount);

export function judgeRun(plan: Plan, sink: EventSink, input: JudgeInput): Judgement {
  const scale = TimeScale.of(plan.timeScale, "the plan's timeScale");
  const { end } = input;
  const recorder = sink.recorder;
  // 429s against the documented (or raised) limits, replayed on what the server admitted.
  // A shard saw only its share of the traffic that filled the service's bucket: its 429s are counted, not
  // judged (no share of a bucket replays what the others took); the merge judges every shard's against it.
  const judged = envelopeFindings(plan, recorder.attempts, effectiveLimits(plan.scenario), bucketStartOf(input.run));
  const envelope = plan.shard === undefined ? judged : sharedEnvelope(judged);
  const verdict = evaluateVerdict({
    phases: plan.phases.map((p, i) => ({
      name: p.name,
      bands: p.bands.map((b, j) => ({
        band: b.band,
        fromRpm: b.fromRpm,
        toRpm: b.toRpm,
        steadyPlanned: b.steadyArrivals,
        steady: recorder.steadyBands[i]![j]!,
      })),
      planned: p.arrivalsMs.length,
      inFlight: {
        maxInFlight: maxInFlightOf(plan),
        neededAtTarget: (p.peakRpm / 60_000) * latencyTargetMs(plan, p.index),
        targetMs: latencyTargetMs(plan, p.index),
        ...(i === 0
          ? {}
          : {
              before: {
                name: plan.phases[i - 1]!.name,
                peakRpm: plan.phases[i - 1]!.peakRpm,
                heldBeyondLatencyMs: meanHeld(recorder.phases[i - 1]!, recorder.overall),
              },
            }),
      },
      steady: recorder.steady[i]!,
      all: recorder.phases[i]!,
      envelope: envelope.phases[i]!,
      thresholds: [...plan.scenario.thresholds.all, ...(plan.scenario.thresholds.byPhase.get(p.name) ?? [])],
      errorCheck: plan.scenario.thresholds.errors,
      ...(sink.documents === undefined
        ? {}
        : { stages: stageInputs(sink.documents.steady[i]!), phi: sink.documents.phases[i]!.phi }),
    })),
    documentedTargets: plan.scenario.thresholds.documentedTargets,
    // The event loop's delays count only when both were monitored.
    generator: {
      ...(end.eventLoopDelayP99Ms === null || end.eventLoopDelayMaxMs === null
        ? generatorHealth(scale, null, null, end.mockLag)
        : generatorHealth(scale, end.eventLoopDelayP99Ms, end.eventLoopDelayMaxMs, end.mockLag)),
      slotHeldBeyondLatencyMs: meanHeld(recorder.overall),
    },
  });
  const files = [...end.files, ...(input.moreFiles ?? [])];
  const exitCode =
    input.partial || end.stop?.by === 'failure' || files.some((f) => f.error !== null)
      ? EXIT.runFailed
      : end.engine.interrupted && end.stop?.by !== 'threshold'
        ? EXIT.interrupted
        : { pass: EXIT.pass, fail: EXIT.slaNotMet, inconclusive: EXIT.inconclusive }[verdict.status];
  const summary = buildSummary(plan, recorder, verdict, {
    documents: sink.documents,
    run: input.run,
    end,
    partial: input.partial,
    files,
    exitCode,
    reportedAt: input.reportedAt,
    judgedBy: input.judgedBy,
    envelope,
    topErrors: sink.errors.top(recorder.overall.sent),
    topErrorsNotGrouped: sink.errors.notGrouped,
  });
  return { verdict, exitCode, summary };
}

/** What the events tell of a run that did not record its end. */
export function partialEnd(sink: EventSink, endedAt: string): RunEnd {
  const o = sink.recorder.overall;
  return {
    endedAt,
    engine: {
      fired: o.sent,
      dropped: o.dropped,
      unsent: o.unsent,
      abandoned: o.outcomes.abandoned,
      interrupted: true,
      elapsedMs: sink.lastMs,
    },
    stop: {
      by: 'unknown',
      code: 'PARTIAL',
      message:
        'the run ended without recording its end (a second Ctrl-C, a crash or a kill): judged from the events it wrote',
    },
    tokenCalls: null,
    tokenLatency: MsHistogram.create().encode(),
    eventLoopDelayP99Ms: null,
    eventLoopDelayMaxMs: null,
    files: [],
  };
}
