/**
 * One run, end to end, in steps:
 *  1. prepare (prepare.ts): scenario → plan → guard (a refusal sends nothing, not even a token call);
 *  2. the run folder (a bad --out is exit 2, before anything is sent) and the target;
 *  3. measure: the token (before any load), then the open-model engine, every request's fate
 *     recorded and streamed to events.ndjson as it completes;
 *  4. judge the measurement (src/judge: the same code `loadproof report` runs on the folder) and write summary.json.
 * The folder keeps what is needed to judge the run again: the scenario as run, run.json (the plan's
 * identity, the loadproof version, the target, the guard's decision; at the end, the engine's and the
 * generator's figures) and events.ndjson, one line per planned request.
 * A stop signal, or a token failure mid-run, ends the firing: requests in flight get the drain,
 * those still unanswered are cancelled, and every planned request still gets its line. Nothing
 * measured is dropped because a file could not be written: the failure is named and the exit is 4.
 * Every secret is added to the mask as soon as it is known, and every line written passes through it.
 */
import { createHash } from 'node:crypto';
import { extname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { attemptWallDeadlineMs, createApiCall, createIdentify, TokenProvider, ConnectionPool, MAX_OBFUSCATION_ANSWER_BYTES } from '../client/index.js';
import { ScaledClock, Interrupted, RunFailure, ThresholdAbort, UsageError, EXIT, createRng, collectGarbageNow, capYoungGeneration, formatMs, LOADPROOF_VERSION, type FileResult, writeAtomically, writeWhole } from '../core/index.js';
import { type TextSource, createTextSource } from '../texts/index.js';
import { runPlan } from '../engine/index.js';
import { EventSink, type Judgement, RUN_RECORD_SCHEMA_VERSION, type RunEnd, type RunRecord, guardRecord, judgeRun, summaryJson, type BaselineComparison, COMPARISON_FILE, compareRuns, exitWithComparison } from '../judge/index.js';
import { type Plan, arrivalsBefore, maxInFlightOf } from '../plan/index.js';
import { RunMetrics } from './metrics/run-metrics.js';
import { exposureWarning } from './metrics/listen.js';
import { startMetricsServer } from './metrics/server.js';
import { MsHistogram } from '../recorder/index.js';
import { API_PATHS } from '../spec/index.js';
import { EventLog, claimRunFolder, dropClaim, makeRunFolder, pointLatestAt, releaseRunFolder } from '../run-folder/index.js';
import { Progress } from './progress.js';
import { AbortWatch } from './abort-watch.js';
import { type ResolvedTarget, resolveTarget } from '../target/index.js';
import { loopMonitorIntervalMs } from './loop-monitor.js';
import { RequestEvents } from './request-events.js';
import { DeidChain } from './deid-chain.js';
import { TargetWatch } from './target-watch.js';
import type { PreparedRun, RunOptions, RunOutcome } from './run-options.js';
import { lateLimitWallMs } from './start-at.js';
import { encodeDocumentPieces } from './plan-scenario.js';
import { warmUp } from './warm-up.js';

/** How long before --start-at a waiting run takes its token and warms up (wall ms). */
const START_AT_WARM_LEAD_MS = 5000;

/** Resolves at epoch ms `atMs`, or at once when `signal` aborts. */
function sleepUntil(atMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, atMs - Date.now()));
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}

const ordinal = (n: number): string => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'}`;

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Steps 2 to 4, for a run that step 1 ({@link prepare}, in prepare.ts) let through. */
export async function executeRun(options: RunOptions, prepared: PreparedRun): Promise<RunOutcome> {
  const { scenario, plan } = prepared;
  const metrics = options.metrics === undefined ? undefined : new RunMetrics(plan, { scenario: scenario.name, environment: scenario.target.environment, timeScale: plan.timeScale });
  // Listening before anything is made or sent: a port in use is bad input (exit 2), with nothing to clean up.
  const server = metrics === undefined ? undefined : await startMetricsServer(options.metrics!.host, options.metrics!.port, () => metrics.families());
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

async function measureAndReport(options: RunOptions, { scenario, scenarioText, plan, planIdentity: wholePlanIdentity, guard, permit, userTexts }: PreparedRun, metrics: RunMetrics | undefined): Promise<RunOutcome> {
  // A baseline is compared phase by phase, by name: one with none of this plan's phases would compare nothing.
  const baselinePhases = options.baseline?.run.summary.phases.map((p) => p.name);
  if (baselinePhases !== undefined && !plan.phases.some((p) => baselinePhases.includes(p.name))) {
    throw new UsageError(
      `--baseline ${options.baseline!.dir}: none of its phases (${baselinePhases.join(', ')}) is a phase of ${scenario.name} (${plan.phases.map((p) => p.name).join(', ')})`,
      'compare runs of the same scenario, or of scenarios whose phases share names; nothing was sent',
    );
  }
  const startedAt = new Date();
  // --run-dir is claimed exclusively: a second command claiming it is refused at once (exit 2), before anything is sent.
  const claimed = options.runDir === undefined ? { dir: await makeRunFolder(options.outDir, scenario.name, startedAt), made: true, token: null } : await claimRunFolder(options.runDir);
  const reportDir = claimed.dir;
  let target: ResolvedTarget;
  let events: EventLog;
  let documentsLog: EventLog | undefined;
  const created: string[] = [];
  const opened: EventLog[] = [];
  try {
    events = await EventLog.open(join(reportDir, 'events.ndjson'));
    created.push('events.ndjson');
    opened.push(events);
    if (plan.documents !== undefined) {
      documentsLog = await EventLog.open(join(reportDir, 'documents.ndjson'));
      created.push('documents.ndjson');
      opened.push(documentsLog);
    }
    target = await resolveTarget(scenario, permit, { timeScale: plan.timeScale, mockProfile: options.mockProfile, env: options.env, credentialsFile: options.credentialsFile });
  } catch (error) {
    // Nothing was sent and nothing measured: leave no folder behind (a --run-dir the user made is left empty), and only what this run made goes.
    for (const log of opened) await log.close().catch(() => {});
    await releaseRunFolder(claimed, created);
    throw error;
  }
  try {
    options.secrets.add(target.clientSecret);
    for (const warning of target.warnings) options.log(`loadproof: warning: ${warning}`);
    const relative = (f: FileResult): FileResult => ({ file: f.file.slice(reportDir.length + 1), error: f.error });
    const writeText = async (file: string, text: string): Promise<FileResult> => relative(await writeWhole(join(reportDir, file), options.secrets.redact(text)));
    // summary.json and run.json are written whole or not at all: a reader never finds half of one.
    const writeJsonAtomically = async (file: string, text: string | Iterable<string>): Promise<FileResult> =>
      relative(await writeAtomically(join(reportDir, file), typeof text === 'string' ? options.secrets.redact(text) : redactEach(text)));
    function* redactEach(pieces: Iterable<string>): Generator<string> {
      for (const piece of pieces) yield options.secrets.redact(piece);
    }
    const writeRunJson = (record: RunRecord): Promise<FileResult> => writeJsonAtomically('run.json', `${JSON.stringify(record, null, 2)}\n`);
    const scenarioFile = extname(options.scenarioFile).toLowerCase() === '.json' ? 'scenario.json' : 'scenario.yaml';
    const scenarioWritten = await writeText(scenarioFile, scenarioText);
    const run: RunRecord = {
      schemaVersion: RUN_RECORD_SCHEMA_VERSION,
      loadproofVersion: LOADPROOF_VERSION,
      scenarioFile,
      scenarioSource: options.scenarioFile,
      scenarioSha256: sha256(scenarioText),
      planIdentity: wholePlanIdentity,
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
    // Written before the load, so a run that never records its end can still be judged (partial).
    const runStartWritten = await writeRunJson(run);
    const sink = new EventSink(plan);
    const measured = await measure(plan, target, events, sink, options, createTextSource(scenario.payload, userTexts, scenario.mode), documentsLog, metrics);
    const logsClosed = [relative(await events.close()), ...(documentsLog === undefined ? [] : [relative(await documentsLog.close())])];
    const end: RunEnd = { ...measured.end, endedAt: new Date().toISOString(), files: [scenarioWritten, ...logsClosed] };
    const runEndWritten = await writeRunJson({ ...run, end });
    const runFile = [runStartWritten, runEndWritten].find((f) => f.error !== null);
    const judged = (moreFiles: readonly FileResult[]): Judgement =>
      judgeRun(plan, sink, { run, end, partial: false, moreFiles: runFile === undefined ? moreFiles : [runFile, ...moreFiles], reportedAt: new Date().toISOString(), judgedBy: LOADPROOF_VERSION });
    // The load is over: its garbage goes before the judgement and the reports (charts above all) allocate, so
    // that they reuse its space instead of growing the heap past it (a 24-hour soak's peak RSS; src/core/full-collection.ts).
    collectGarbageNow();
    let judgement = judged([]);
    // Against --baseline: kept in the folder (comparison.json), so that `loadproof report` puts it in the reports again.
    const baseline = options.baseline;
    const comparison: BaselineComparison | undefined =
      baseline === undefined ? undefined : { baselineDir: baseline.dir, ...compareRuns(baseline.run, { summary: judgement.summary, steady: sink.recorder.steady }, { tolerance: baseline.tolerance }) };
    const comparisonWritten = comparison === undefined ? [] : [await writeJsonAtomically(COMPARISON_FILE, `${JSON.stringify(comparison, null, 2)}\n`)];
    // The reports before summary.json, so that it names any that could not be written.
    const redact = (text: string): string => options.secrets.redact(text);
    const reportFailures = (await options.reports.write(reportDir, { summary: judgement.summary, run: { ...run, end }, scenario: plan.scenario, ...(comparison === undefined ? {} : { comparison }), pngCharts: options.pngCharts !== false }, redact).catch((error: unknown) => [{ file: join(reportDir, 'junit.xml'), error: `the reports could not be built: ${(error as Error).message}` }]))
      .map(relative)
      .concat(comparisonWritten)
      .filter((f) => f.error !== null);
    if (reportFailures.length > 0) judgement = judged(reportFailures);
    const summaryWritten = await writeJsonAtomically('summary.json', summaryJson(judgement.summary));
    if (summaryWritten.error !== null) judgement = judged([...reportFailures, summaryWritten]);
    // Last: it hashes every file above. A manifest that cannot be written fails the run (exit 4) although summary.json, written before, cannot say so.
    // Not over a folder whose summary.json is not the judgement: the manifest would vouch for a mismatched pair.
    // The claim goes before the manifest, which lists the folder's files: a folder with files in it is refused by any claim anyway.
    await dropClaim(claimed);
    const manifest =
      summaryWritten.error === null
        ? await options.reports.writeManifest(reportDir, { ...run, end }, judgement.summary, plan.scenario, redact)
        : { file: join(reportDir, 'manifest.json'), error: 'not written, since summary.json could not be', sha256: null };
    const writeFailures = [...end.files, runFile, ...reportFailures, summaryWritten, ...(summaryWritten.error === null ? [relative(manifest)] : [])].filter((f): f is FileResult => f !== undefined && f.error !== null).map((f) => ({ ...f, file: join(reportDir, f.file) }));
    const exitCode = manifest.error !== null && judgement.exitCode !== EXIT.runFailed ? EXIT.runFailed : exitWithComparison(judgement.exitCode, comparison);
    // Once the folder is whole: `<out>/latest` never points at a run still being written.
    if (options.runDir === undefined) {
      const notPointed = await pointLatestAt(options.outDir, reportDir);
      if (notPointed !== null) options.log(`loadproof: warning: ${notPointed}`);
    }
    return { exitCode, reportDir, summary: judgement.summary, manifestSha256: manifest.sha256, failure: measured.failure, writeFailures, summaryPath: summaryWritten.error === null ? join(reportDir, 'summary.json') : null, comparison };
  } finally {
    // A run that failed after measuring keeps its folder (evidence), not its claim.
    await dropClaim(claimed);
    await target.embedded?.close();
  }
}

/** Why the firing ended before the plan did: a stop signal, or a failure that makes the run fail. */
type Stop = { readonly kind: 'signal'; readonly error: Interrupted } | { readonly kind: 'failure'; readonly error: RunFailure } | { readonly kind: 'threshold'; readonly error: ThresholdAbort };

interface Measurement {
  /** The run's end as recorded in run.json, but for the time and the files (added by the caller). */
  readonly end: Omit<RunEnd, 'endedAt' | 'files'>;
  /** What ended the run early and made it fail, if anything did. */
  readonly failure: RunFailure | undefined;
}

/** Step 3: the token, then the load. Never throws for a request that failed: its fate is its event. */
async function measure(plan: Plan, target: ResolvedTarget, events: EventLog, sink: EventSink, options: RunOptions, texts: TextSource, documentsLog: EventLog | undefined, metrics: RunMetrics | undefined): Promise<Measurement> {
  const scenario = plan.scenario;
  const k = plan.timeScale;
  // keepAlive: the engine's sleeps until the next arrival hold the process open.
  const clock = new ScaledClock(k, { keepAlive: true });
  const progress = new Progress(plan, clock, options.progress ?? 'off', options.progressWrite ?? (() => {}), options.progressColumns);
  const abortWatch = new AbortWatch(plan);
  // A line logged while the load runs first erases a terminal's progress line.
  const log = (line: string): void => {
    progress.clear();
    options.log(line);
  };
  // `stop` ends the firing (a signal, or a fatal token failure); `cancel` ends the drain.
  const stop = new AbortController();
  const cancel = new AbortController();
  let stopped: Stop | undefined;
  const stopWith = (reason: Stop): void => {
    stopped ??= reason;
    stop.abort();
  };
  const onSignal = (): void => stopWith({ kind: 'signal', error: new Interrupted('stopped by a signal') });
  if (options.signal.aborted) onSignal();
  else options.signal.addEventListener('abort', onSignal, { once: true });

  // Identification requests go through our own HTTP/1.1 client (one request per connection at a time);
  // the token endpoint, called a few times per run, through node:http (TokenProvider).
  // A shard holds its share of maxInFlight, so that n shards together hold no more than one run would.
  const maxInFlight = maxInFlightOf(plan);
  const pool = ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight);
  // mode deid: obfuscation calls on connections of their own (the endpoint has its own, higher limits).
  const obfuscationPool = plan.documents === undefined ? undefined : ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight, undefined, MAX_OBFUSCATION_ANSWER_BYTES);
  const tokenLatency = MsHistogram.create();
  // A target that stops answering ends the run as a failure, not as a verdict.
  const watch = new TargetWatch(k);
  const tokens = new TokenProvider({
    permit: target.permit,
    baseUrl: target.baseUrl,
    audience: target.audience,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    credentialSource: target.credentialSource,
    clock,
    timeoutMs: Math.max(1000, scenario.timeoutMs / k),
    signal: stop.signal,
    onFetch: (ms, status) => {
      tokenLatency.recordMs(ms);
      if (options.verbose) log(`token: POST ${target.baseUrl.replace(/\/+$/, '')}${API_PATHS.token} → ${status} in ${formatMs(ms)} (credentials from ${target.credentialSource}; token not shown)`);
    },
    onToken: (token) => options.secrets.addToken(token),
    onFatal: (failure) => {
      log(`loadproof: ${failure.code}: stopping the run (no access token can be had): no new requests; waiting for the answers in flight, then writing the report`);
      stopWith({ kind: 'failure', error: failure });
    },
    onWarning: (message) => log(`loadproof: warning: ${message}`),
  });
  const loopIntervalMs = loopMonitorIntervalMs(plan.arrivals, plan.durationMs / k);
  const loop = monitorEventLoopDelay({ resolution: loopIntervalMs });
  let stopCapCheck = (): void => {};
  let startLateMs: number | undefined;
  try {
    // --start-at far ahead: wait until shortly before it, so that the token and the warmed connections are fresh at t = 0.
    if (options.startAtMs !== undefined && options.startAtMs - Date.now() > START_AT_WARM_LEAD_MS) {
      log(`loadproof: --start-at: waiting until ${new Date(options.startAtMs - START_AT_WARM_LEAD_MS).toISOString()} to warm up (the schedule starts at ${new Date(options.startAtMs).toISOString()})`);
      await sleepUntil(options.startAtMs - START_AT_WARM_LEAD_MS, stop.signal);
    }
    // The token comes first and is not part of the load: if it fails, nothing is sent and every request is unsent.
    await tokens.get().catch((error: unknown) => {
      if (error instanceof Interrupted) stopWith({ kind: 'signal', error });
      else if (error instanceof RunFailure) stopWith({ kind: 'failure', error });
      else throw error;
    });
    // Time-scaled runs are against a mock, whose Server-Timing says each answer's model time in its service.
    const readServerTiming = k > 1 && target.kind !== 'real';
    const identify = createIdentify({
      baseUrl: target.baseUrl,
      pool,
      tokens,
      clock,
      timeScale: k,
      timeoutMs: scenario.timeoutMs,
      readServerTiming,
      on429: { ...scenario.on429 },
      rng: createRng(scenario.arrivals.seed + 7),
      stop: stop.signal,
      cancel: cancel.signal,
      keepEntities: plan.documents !== undefined,
    });
    const chain =
      obfuscationPool === undefined
        ? undefined
        : new DeidChain({
            plan,
            texts,
            obfuscate: createApiCall(
              { baseUrl: target.baseUrl, pool: obfuscationPool, tokens, clock, timeScale: k, timeoutMs: scenario.timeoutMs, readServerTiming, on429: { ...scenario.on429 }, rng: createRng(scenario.arrivals.seed + 11), stop: stop.signal, cancel: cancel.signal },
              API_PATHS.obfuscation,
            ),
            style: scenario.deid.style,
            concurrency: scenario.deid.concurrency,
            clock,
            sink: sink.documents!,
            secrets: options.secrets,
            write: (line) => documentsLog!.write(line),
          });
    if (stopped === undefined) {
      // Warm-up, not load: connections opened (no request on them) and the per-request code run over and
      // over, without the target (warm-up.ts), so the first arrivals do not pay for handshakes and cold code
      // that later ones do not.
      const opened = await pool.open(warmConnectionCount(plan), Math.max(1000, scenario.timeoutMs / k));
      await warmUp(plan, options.secrets, target.permit);
      // The warm-up's garbage collected before t = 0, so that it does not set the heap's limits for the run (src/core/full-collection.ts).
      collectGarbageNow();
      log(`loadproof: warm-up: ${tokens.fetchCount} token call${tokens.fetchCount === 1 ? '' : 's'} and ${opened} connection${opened === 1 ? '' : 's'} opened before the first arrival (no other request; not load, not judged)`);
      const share = plan.shard === undefined ? '' : ` (shard ${plan.shard.index}/${plan.shard.count}: every ${plan.shard.count === 1 ? '' : `${ordinal(plan.shard.count)} `}arrival of the plan, from seq ${plan.shard.index})`;
      log(`loadproof: ${scenario.name}: ${plan.arrivals} requests${share} over ${plan.durationMs / 1000} s of model time (${(plan.durationMs / k / 1000).toFixed(1)} s of wall time) against ${target.baseUrl}`);
      if (options.startAtMs !== undefined) {
        const aheadMs = options.startAtMs - Date.now();
        startLateMs = Math.max(0, -aheadMs);
        if (-aheadMs > lateLimitWallMs(k)) {
          // Later than 1 s of model time, the overdue arrivals would leave in one burst: nothing of the load is sent.
          log(`loadproof: RUN_FAILED: --start-at: ready ${(-aheadMs).toFixed(0)} ms after it, more than ${lateLimitWallMs(k)} ms (1 s of model time): no request is sent`);
          stopWith({ kind: 'failure', error: new RunFailure('RUN_FAILED', `--start-at ${new Date(options.startAtMs).toISOString()}: ready ${(-aheadMs).toFixed(0)} ms late, after the token call and warm-up (at most ${lateLimitWallMs(k)} ms, 1 s of model time): every request is unsent`, 'give every shard a start further ahead') });
        } else {
          log(aheadMs >= 0 ? `loadproof: --start-at: the schedule starts at ${new Date(options.startAtMs).toISOString()}, in ${(aheadMs / 1000).toFixed(1)} s` : `loadproof: --start-at: started ${(-aheadMs).toFixed(0)} ms late; the lateness is in every arrival's send lag until it is caught up`);
        }
      }
    }
    const requestEvents = new RequestEvents({
      plan,
      sink,
      watch,
      secrets: options.secrets,
      write: (line) => events.write(line),
      onTargetGone: (why) => {
        if (stopped !== undefined) return;
        log(`loadproof: TARGET_UNREACHABLE: stopping the run: no new requests; waiting for the answers in flight, then writing the report`);
        stopWith({ kind: 'failure', error: new RunFailure('TARGET_UNREACHABLE', why, 'everything measured until then is in the report') });
      },
      verboseLog: options.verbose ? log : undefined,
      onRecord: (record) => {
        progress.record(record);
        metrics?.record(record);
        const failed = abortWatch.active && stopped === undefined ? abortWatch.record(record) : undefined;
        if (failed === undefined) return;
        log(`loadproof: THRESHOLD_ABORT: ${failed}; stopping the run: no new requests; waiting for the answers in flight, then writing the report`);
        stopWith({ kind: 'threshold', error: new ThresholdAbort(failed) });
      },
    });
    // From t = 0, V8's young generation stops growing at its first step: a long run's RSS does not step up late (src/core/young-generation.ts).
    stopCapCheck = capYoungGeneration();
    loop.enable();
    // --start-at: t = 0 at that instant on the run's clock (ahead: the engine sleeps until it; late: its arrivals are overdue).
    const scheduleStartMs = options.startAtMs === undefined ? clock.nowMs() : clock.nowMs() + (options.startAtMs - Date.now()) * k;
    progress.start(scheduleStartMs);
    const engine = await runPlan({
      plan,
      startMs: scheduleStartMs,
      identify: chain === undefined ? identify : chain.identify(identify),
      // Texts are drawn in arrival order from the payload seed, so a run repeats.
      payload: (seq) => texts.textFor(seq),
      clock,
      maxInFlight,
      signal: stop.signal,
      // A stopped run waits for the answers in flight as long as an attempt may wait.
      drainMs: attemptWallDeadlineMs(scenario.timeoutMs, k, readServerTiming) * k,
      cancelInFlight: () => cancel.abort(),
      onEvent: (e) => {
        requestEvents.handle(e);
        chain?.observe(e);
      },
      onStart: (startMs) => {
        chain?.start(startMs);
        metrics?.start(startMs, () => clock.nowMs());
      },
      ...(chain === undefined ? {} : { queued: () => chain.queued, admission: (seq: number) => chain.admission(seq) }),
    });
    // The obfuscation calls of the last documents: bounded by their own deadlines, cancelled with the drain.
    await chain?.drain();
    loop.disable();
    progress.stop();
    // The monitor samples the gap between timer wake-ups, which includes its own resolution: subtract it.
    const delayMs = (ns: number): number | null => (loop.count > 0 ? Math.max(0, ns / 1e6 - loopIntervalMs) : null);
    // A signal or failure after the last answer stopped nothing: the measurement is whole.
    // A target that died in the plan's last minute had no minute left to show it: its trailing silence says so.
    const goneAtEnd = engine.interrupted ? undefined : watch.atEnd();
    const stoppedBy: Stop | undefined = engine.interrupted
      ? stopped
      : goneAtEnd === undefined
        ? undefined
        : { kind: 'failure', error: new RunFailure('TARGET_UNREACHABLE', goneAtEnd, 'everything measured until then is in the report') };
    if (goneAtEnd !== undefined) log(`loadproof: TARGET_UNREACHABLE: ${goneAtEnd}`);
    const { fired, dropped, unsent, abandoned, interrupted, elapsedMs } = engine;
    return {
      end: {
        engine: { fired, dropped, unsent, abandoned, interrupted, elapsedMs },
        stop: stoppedBy === undefined ? null : { by: stoppedBy.kind, code: stoppedBy.error.code, message: stoppedBy.error.message },
        tokenCalls: tokens.fetchCount,
        ...(startLateMs === undefined ? {} : { startLateMs: Math.round(startLateMs) }),
        tokenLatency: tokenLatency.encode(),
        eventLoopDelayP99Ms: delayMs(loop.percentile(99)),
        eventLoopDelayMaxMs: delayMs(loop.max),
        payload: texts.record(),
      },
      failure: stoppedBy?.kind === 'failure' ? stoppedBy.error : undefined,
    };
  } finally {
    progress.stop();
    stopCapCheck();
    loop.disable();
    // Nothing of this run may keep the process alive: a renewal still in flight is abandoned (and its connections closed).
    tokens.close();
    pool.close();
    obfuscationPool?.close();
    options.signal.removeEventListener('abort', onSignal);
  }
}

/**
 * Connections to open before the first arrival: what the plan's first second of wall time may hold in
 * flight at once, at most maxInFlight and {@link MAX_WARM_CONNECTIONS}.
 */
function warmConnectionCount(plan: Plan): number {
  return arrivalsBefore(plan, 1000 * plan.timeScale, Math.min(maxInFlightOf(plan), MAX_WARM_CONNECTIONS));
}

/** The most connections opened ahead of the load: enough for the first second at loopback latencies, few for a real service. */
const MAX_WARM_CONNECTIONS = 64;

