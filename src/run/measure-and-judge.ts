/**
 * Steps 2 to 4 of a run, for a run that step 1 (prepare.ts) let through:
 *  2. the run folder (a bad --out is exit 2, before anything is sent) and the target;
 *  3. measure (measure.ts);
 *  4. judge the measurement (src/judge: the same code `loadproof report` runs on the folder) and finish the
 *     folder as `report` does (src/run-folder's finishRun: the reports, summary.json, the manifest).
 * The folder keeps what is needed to judge the run again: the scenario as run, run.json (the plan's
 * identity, the loadproof version, the target, the guard's decision; at the end, the engine's and the
 * generator's figures) and events.ndjson, one line per planned request.
 * Nothing measured is dropped because a file could not be written: the failure is named and the exit is 4.
 * Every secret is added to the mask as soon as it is known, and every line written passes through it.
 */
import { createHash } from 'node:crypto';
import { extname, join } from 'node:path';

import {
  collectGarbageNow,
  type FileResult,
  LOADPROOF_VERSION,
  type SecretMask,
  UsageError,
  writeAtomically,
  writeWhole,
} from '../core/index.js';
import {
  type BaselineComparison,
  compareRuns,
  COMPARISON_FILE,
  EventSink,
  guardRecord,
  type Judgement,
  judgeRun,
  RUN_RECORD_SCHEMA_VERSION,
  type RunEnd,
  type RunRecord,
} from '../judge/index.js';
import {
  claimRunFolder,
  dropClaim,
  EventLog,
  finishRun,
  makeRunFolder,
  pointLatestAt,
  releaseRunFolder,
} from '../run-folder/index.js';
import { type ResolvedTarget, resolveTarget } from '../target/index.js';
import { createTextSource } from '../texts/index.js';
import { measure, type Measurement } from './measure.js';
import { exposureWarning } from './metrics/listen.js';
import { RunMetrics } from './metrics/run-metrics.js';
import { startMetricsServer } from './metrics/server.js';
import { encodeDocumentPieces } from './plan-scenario.js';
import type { PreparedRun, RunOptions, RunOutcome } from './run-options.js';

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Steps 2 to 4, for a run that step 1 ({@link prepare}, in prepare.ts) let through. */
export async function measureAndJudge(options: RunOptions, prepared: PreparedRun): Promise<RunOutcome> {
  const { scenario, plan } = prepared;
  const metrics =
    options.metrics === undefined
      ? undefined
      : new RunMetrics(plan, {
          scenario: scenario.name,
          environment: scenario.target.environment,
          timeScale: options.timeScale,
        });
  // Listening before anything is made or sent: a port in use is bad input (exit 2), with nothing to clean up.
  const server =
    metrics === undefined
      ? undefined
      : await startMetricsServer(options.metrics!.host, options.metrics!.port, () => metrics.families());
  if (server !== undefined) {
    options.log(`loadproof: metrics: ${server.url} (OpenMetrics or Prometheus text, while the run lasts)`);
    const warning = exposureWarning(server.exposure, server.url);
    if (warning !== null) options.log(warning);
  }
  try {
    return await measureAndReport(options, prepared, metrics);
  } finally {
    await server?.close();
  }
}

/** The run's folder, claimed, with its event logs open, and the target the run sends to. */
interface OpenedRun {
  readonly claimed: Awaited<ReturnType<typeof claimRunFolder>>;
  readonly reportDir: string;
  readonly events: EventLog;
  readonly documentsLog: EventLog | undefined;
  readonly target: ResolvedTarget;
}

async function measureAndReport(
  options: RunOptions,
  prepared: PreparedRun,
  metrics: RunMetrics | undefined,
): Promise<RunOutcome> {
  checkBaselineShares(options, prepared);
  const startedAt = new Date();
  const opened = await openRun(options, prepared, startedAt);
  try {
    return await recordAndJudge(options, prepared, opened, startedAt, metrics);
  } finally {
    // A run that failed after measuring keeps its folder (evidence), not its claim.
    await dropClaim(opened.claimed);
    await opened.target.embedded?.close();
  }
}

/** A baseline is compared phase by phase, by name: one with none of this plan's phases would compare nothing. */
function checkBaselineShares(options: RunOptions, { scenario, plan }: PreparedRun): void {
  const baselinePhases = options.baseline?.run.summary.phases.map((p) => p.name);
  if (baselinePhases !== undefined && !plan.phases.some((p) => baselinePhases.includes(p.name))) {
    throw new UsageError(
      `--baseline ${options.baseline!.dir}: none of its phases (${baselinePhases.join(', ')}) is a phase of ${scenario.name} (${plan.phases.map((p) => p.name).join(', ')})`,
      'compare runs of the same scenario, or of scenarios whose phases share names; nothing was sent',
    );
  }
}

/** Step 2: the folder and the target, before anything is sent; on a failure, nothing this run made is left. */
async function openRun(
  options: RunOptions,
  { scenario, plan, permit }: PreparedRun,
  startedAt: Date,
): Promise<OpenedRun> {
  // --run-dir is claimed exclusively: a second command claiming it is refused at once (exit 2), before anything is sent.
  const claimed =
    options.runDir === undefined
      ? { dir: await makeRunFolder(options.outDir, scenario.name, startedAt), made: true, token: null }
      : await claimRunFolder(options.runDir);
  const reportDir = claimed.dir;
  const created: string[] = [];
  const opened: EventLog[] = [];
  try {
    const events = await EventLog.open(join(reportDir, 'events.ndjson'));
    created.push('events.ndjson');
    opened.push(events);
    let documentsLog: EventLog | undefined;
    if (plan.documents !== undefined) {
      documentsLog = await EventLog.open(join(reportDir, 'documents.ndjson'));
      created.push('documents.ndjson');
      opened.push(documentsLog);
    }
    const target = await resolveTarget(scenario, permit, {
      timeScale: plan.timeScale,
      mockProfile: options.mockProfile,
      env: options.env,
      credentialsFile: options.credentialsFile,
    });
    return { claimed, reportDir, events, documentsLog, target };
  } catch (error) {
    // Nothing was sent and nothing measured: leave no folder behind (a --run-dir the user made is left empty), and only what this run made goes.
    for (const log of opened) await log.close().catch(() => {});
    await releaseRunFolder(claimed, created);
    throw error;
  }
}

/** How the run writes its own files into its folder: masked, and named relative to it. */
interface FolderWrites {
  readonly relative: (f: FileResult) => FileResult;
  readonly writeText: (file: string, text: string) => Promise<FileResult>;
  /** summary.json and run.json are written whole or not at all: a reader never finds half of one. */
  readonly writeJsonAtomically: (file: string, text: string | Iterable<string>) => Promise<FileResult>;
  readonly writeRunJson: (record: RunRecord) => Promise<FileResult>;
}

function folderWrites(reportDir: string, secrets: SecretMask): FolderWrites {
  const relative = (f: FileResult): FileResult => ({ file: f.file.slice(reportDir.length + 1), error: f.error });
  function* redactEach(pieces: Iterable<string>): Generator<string> {
    for (const piece of pieces) yield secrets.redact(piece);
  }
  const writeJsonAtomically = async (file: string, text: string | Iterable<string>): Promise<FileResult> =>
    relative(
      await writeAtomically(join(reportDir, file), typeof text === 'string' ? secrets.redact(text) : redactEach(text)),
    );
  return {
    relative,
    writeText: async (file, text) => relative(await writeWhole(join(reportDir, file), secrets.redact(text))),
    writeJsonAtomically,
    writeRunJson: (record) => writeJsonAtomically('run.json', `${JSON.stringify(record, null, 2)}\n`),
  };
}

/** Steps 3 and 4: the scenario's copy and run.json first, then the load, then run.json's end, the judgement and the reports. */
async function recordAndJudge(
  options: RunOptions,
  prepared: PreparedRun,
  opened: OpenedRun,
  startedAt: Date,
  metrics: RunMetrics | undefined,
): Promise<RunOutcome> {
  const { scenario, scenarioText, plan, userTexts } = prepared;
  const { target, events, documentsLog, reportDir } = opened;
  options.secrets.add(target.clientSecret);
  for (const warning of target.warnings) options.log(`loadproof: warning: ${warning}`);
  const writes = folderWrites(reportDir, options.secrets);
  const scenarioFile = extname(options.scenarioFile).toLowerCase() === '.json' ? 'scenario.json' : 'scenario.yaml';
  const scenarioWritten = await writes.writeText(scenarioFile, scenarioText);
  const run = runRecordAtStart(options, prepared, target, scenarioFile, startedAt);
  // Written before the load, so a run that never records its end can still be judged (partial).
  const runStartWritten = await writes.writeRunJson(run);
  const sink = new EventSink(plan);
  const measured = await measure(
    {
      plan,
      target,
      events,
      sink,
      texts: createTextSource(scenario.payload, userTexts, scenario.mode),
      documentsLog,
      metrics,
    },
    options,
  );
  const logsClosed = [
    writes.relative(await events.close()),
    ...(documentsLog === undefined ? [] : [writes.relative(await documentsLog.close())]),
  ];
  const end: RunEnd = { ...measured.end, endedAt: new Date().toISOString(), files: [scenarioWritten, ...logsClosed] };
  const runEndWritten = await writes.writeRunJson({ ...run, end });
  const runFile = [runStartWritten, runEndWritten].find((f) => f.error !== null);
  return judgeAndFinish(options, prepared, opened, writes, { run, end, sink, runFile, measured });
}

/** run.json as written before the load: the plan's identity, the version, the target and the guard's decision; no end yet. */
function runRecordAtStart(
  options: RunOptions,
  { scenarioText, plan, planIdentity, guard }: PreparedRun,
  target: ResolvedTarget,
  scenarioFile: string,
  startedAt: Date,
): RunRecord {
  return {
    schemaVersion: RUN_RECORD_SCHEMA_VERSION,
    loadproofVersion: LOADPROOF_VERSION,
    scenarioFile,
    scenarioSource: options.scenarioFile,
    scenarioSha256: sha256(scenarioText),
    planIdentity,
    timeScale: plan.timeScale,
    environment: target.environment,
    target: { baseUrl: target.baseUrl, kind: target.kind, profile: target.profile },
    startedAt: startedAt.toISOString(),
    guard: guardRecord(guard),
    host: options.host,
    ...(plan.documents === undefined ? {} : { documentPieces: encodeDocumentPieces(plan)! }),
    ...(options.baseline === undefined ? {} : { baseline: options.baseline.dir }),
    ...(plan.shard === undefined ? {} : { shard: plan.shard }),
    ...(options.startAtMs === undefined ? {} : { startAt: new Date(options.startAtMs).toISOString() }),
    end: null,
  };
}

/** What the load left to judge: run.json's record and end, the events, and run.json's failed write if it had one. */
interface Measured {
  readonly run: RunRecord;
  readonly end: RunEnd;
  readonly sink: EventSink;
  readonly runFile: FileResult | undefined;
  readonly measured: Measurement;
}

/** Step 4: the judgement, the comparison with --baseline, then the folder finished as `report` finishes it. */
async function judgeAndFinish(
  options: RunOptions,
  { plan }: PreparedRun,
  { claimed, reportDir }: OpenedRun,
  writes: FolderWrites,
  { run, end, sink, runFile, measured }: Measured,
): Promise<RunOutcome> {
  const judged = (moreFiles: readonly FileResult[]): Judgement =>
    judgeRun(plan, sink, {
      run,
      end,
      partial: false,
      moreFiles: runFile === undefined ? moreFiles : [runFile, ...moreFiles],
      reportedAt: new Date().toISOString(),
      judgedBy: LOADPROOF_VERSION,
    });
  // The load is over: its garbage goes before the judgement and the reports (charts above all) allocate, so
  // that they reuse its space instead of growing the heap past it (a 24-hour soak's peak RSS; src/core/full-collection.ts).
  collectGarbageNow();
  const judgement = judged([]);
  // Against --baseline: kept in the folder (comparison.json), so that `loadproof report` puts it in the reports again.
  const baseline = options.baseline;
  const comparison: BaselineComparison | undefined =
    baseline === undefined
      ? undefined
      : {
          baselineDir: baseline.dir,
          ...compareRuns(
            baseline.run,
            { summary: judgement.summary, steady: sink.recorder.steady },
            { tolerance: baseline.tolerance },
          ),
        };
  const comparisonWritten =
    comparison === undefined
      ? []
      : [await writes.writeJsonAtomically(COMPARISON_FILE, `${JSON.stringify(comparison, null, 2)}\n`)];
  const finished = await finishRun(reportDir, {
    judgement,
    judge: judged,
    run: { ...run, end },
    scenario: plan.scenario,
    comparison,
    pngCharts: options.pngCharts !== false,
    redact: (text) => options.secrets.redact(text),
    failedBefore: comparisonWritten,
    previous: null,
    again: false,
    // The claim goes before the manifest, which lists the folder's files: a folder with files in it is refused by any claim anyway.
    beforeManifest: () => dropClaim(claimed),
  });
  const { summary: summaryWritten, manifest } = finished;
  const writeFailures = [
    ...end.files,
    runFile,
    ...finished.reportFailures,
    summaryWritten,
    ...(summaryWritten.error === null ? [writes.relative(manifest)] : []),
  ]
    .filter((f): f is FileResult => f !== undefined && f.error !== null)
    .map((f) => ({ ...f, file: join(reportDir, f.file) }));
  // Once the folder is whole: `<out>/latest` never points at a run still being written.
  if (options.runDir === undefined) {
    const notPointed = await pointLatestAt(options.outDir, reportDir);
    if (notPointed !== null) options.log(`loadproof: warning: ${notPointed}`);
  }
  const summaryPath = summaryWritten.error === null ? join(reportDir, 'summary.json') : null;
  return {
    exitCode: finished.exitCode,
    reportDir,
    summary: finished.judgement.summary,
    manifestSha256: manifest.sha256,
    failure: measured.failure,
    writeFailures,
    summaryPath,
    comparison,
  };
}
