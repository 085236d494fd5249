/**
 * One run, end to end, in steps:
 *  1. prepare: scenario → plan → guard (a refusal sends nothing, not even a token call);
 *  2. the run folder (a bad --out is exit 2, before anything is sent) and the target;
 *  3. measure: the token (before any load), then the open-model engine, every request's fate
 *     recorded and streamed to events.ndjson as it completes;
 *  4. judge the measurement and write summary.json.
 * A stop signal, or a token failure mid-run, ends the firing: requests in flight get the drain,
 * those still unanswered are cancelled, and every planned request still gets its line. Nothing
 * measured is dropped because a file could not be written: the failure is named and the exit is 4.
 * Every secret is added to the mask as soon as it is known, and every line written passes through it.
 */
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent } from 'undici';
import { createIdentify } from '../client/api.js';
import { TokenProvider } from '../client/token.js';
import { ScaledClock } from '../core/clock.js';
import { GuardRefusal, Interrupted, type LoadproofError, RunFailure } from '../core/errors.js';
import { checkTimeScale } from '../core/time-scale.js';
import { EXIT } from '../core/exit-codes.js';
import type { SecretMask } from '../core/redact.js';
import { formatMs } from '../core/text.js';
import { createRng } from '../core/rng.js';
import { generateNote } from '../corpus/index.js';
import { type EngineResult, type RequestEvent, runPlan } from '../engine/index.js';
import { type GuardDecision, describeDecision, effectiveLimits, evaluateGuard } from '../guard/index.js';
import type { ProfileName } from '../mock/index.js';
import { type Plan, buildPlan } from '../plan/index.js';
import { Recorder } from '../recorder/index.js';
import { type Scenario, loadScenario } from '../scenario/index.js';
import { API_PATHS } from '../spec/index.js';
import { type EnvelopeJudgement, type Verdict, envelopeFindings, evaluateVerdict } from '../verdict/index.js';
import { EventLog, type FileResult, makeRunFolder, removeRunFolder, useRunFolder, writeWhole } from './output.js';
import { type Summary, buildSummary } from './summary.js';
import { type ResolvedTarget, resolveTarget } from './target.js';

export interface RunOptions {
  readonly scenarioFile: string;
  readonly timeScale: number;
  readonly mockProfile: ProfileName | undefined;
  /** Folder under which the run's report folder is made. */
  readonly outDir: string;
  /** --run-dir: the exact folder for this run's files, instead of a new one under outDir. */
  readonly runDir: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** --credentials <file>. */
  readonly credentialsFile: string | undefined;
  /** Tests only (--allow-loopback-as-real): a real environment at a loopback URL is judged as real. */
  readonly loopbackAsReal: boolean;
  /** --verbose: a line per token call and per request (never a header or a body). */
  readonly verbose: boolean;
  /** Secrets are added here as soon as they are known; everything written passes through it. */
  readonly secrets: SecretMask;
  /** Progress lines (stderr). */
  readonly log: (line: string) => void;
}

export interface RunOutcome {
  readonly exitCode: number;
  readonly reportDir: string;
  readonly summary: Summary;
  /** What ended the run early and made it fail (exit 4), if anything did. */
  readonly failure: LoadproofError | undefined;
  /** Output files that could not be written whole (exit 4). */
  readonly writeFailures: readonly FileResult[];
}

const round = (ms: number | undefined): number | null => (ms === undefined ? null : Math.round(ms * 1000) / 1000);

/** One line of events.ndjson: a planned request's fate, in model ms from the run start. */
function eventLine(plan: Plan, e: RequestEvent): string {
  const r = e.result;
  return `${JSON.stringify({
    seq: e.seq,
    phase: plan.phases[e.phase]!.name,
    intendedAtMs: round(e.intendedAtMs),
    firedAtMs: round(e.firedAtMs),
    lastSentAtMs: round(r?.lastSentAtMs),
    endAtMs: round(r?.endAtMs),
    latencyMs: r === undefined || e.outcome === 'abandoned' ? null : round(r.endAtMs - e.intendedAtMs),
    outcome: e.outcome,
    status: r?.status ?? null,
    attempts: r?.attempts ?? 0,
    retryAfterS: r?.retryAfterS ?? [],
    tries: (r?.tries ?? []).map((t) => ({ sentAtMs: round(t.sentAtMs), endAtMs: round(t.endAtMs), status: t.status ?? null })),
  })}\n`;
}

/** How often the event-loop monitor samples (wall ms). */
const EVENT_LOOP_RESOLUTION_MS = 10;

export async function executeRun(options: RunOptions): Promise<RunOutcome> {
  const { scenario, plan, guard } = await prepare(options);
  const startedAt = new Date();
  const reportDir = options.runDir === undefined ? await makeRunFolder(options.outDir, scenario.name, startedAt) : await useRunFolder(options.runDir);
  let target: ResolvedTarget;
  let events: EventLog;
  try {
    events = await EventLog.open(join(reportDir, 'events.ndjson'));
    target = await resolveTarget(scenario, { timeScale: plan.timeScale, mockProfile: options.mockProfile, env: options.env, credentialsFile: options.credentialsFile });
  } catch (error) {
    // Nothing was sent and nothing measured: leave no folder behind.
    if (options.runDir === undefined) await removeRunFolder(reportDir);
    throw error;
  }
  try {
    options.secrets.add(target.clientSecret);
    for (const warning of target.warnings) options.log(`loadproof: warning: ${warning}`);
    const measured = await measure(plan, target, events, options);
    // 429s the limits clearly allow are findings: the documented limits, or those support raised.
    const envelope = envelopeFindings(plan, measured.recorder.attempts, effectiveLimits(scenario));
    const verdict = judge(plan, measured, envelope);
    const failure = measured.stop?.kind === 'failure' ? measured.stop.error : undefined;
    const exitCode = (writeFailed: boolean): number =>
      failure !== undefined || writeFailed ? EXIT.runFailed : measured.engine.interrupted ? EXIT.interrupted : { pass: EXIT.pass, fail: EXIT.slaNotMet, inconclusive: EXIT.inconclusive }[verdict.status];
    const eventsWritten = await events.close();
    const summaryOf = (files: readonly FileResult[]): Summary =>
      buildSummary(plan, measured.recorder, verdict, {
        environment: target.environment,
        baseUrl: target.baseUrl,
        targetKind: target.kind,
        profile: target.profile,
        startedAt: startedAt.toISOString(),
        endedAt: new Date().toISOString(),
        engine: measured.engine,
        stop: measured.stop === undefined ? null : { by: measured.stop.kind === 'signal' ? 'signal' : 'failure', code: measured.stop.error.code, message: measured.stop.error.message },
        tokenCalls: measured.tokenCalls,
        eventLoopDelayP99Ms: measured.eventLoopDelayP99Ms,
        guard,
        envelope,
        files: files.map((f) => ({ file: f.file.slice(reportDir.length + 1), error: f.error })),
        exitCode: exitCode(files.some((f) => f.error !== null)),
      });
    const summaryPath = join(reportDir, 'summary.json');
    let summary = summaryOf([eventsWritten]);
    const summaryWritten = await writeWhole(summaryPath, options.secrets.redact(`${JSON.stringify(summary, null, 2)}\n`));
    const writeFailures = [eventsWritten, summaryWritten].filter((f) => f.error !== null);
    if (summaryWritten.error !== null) summary = summaryOf([eventsWritten, summaryWritten]);
    return { exitCode: exitCode(writeFailures.length > 0), reportDir, summary, failure, writeFailures };
  } finally {
    await target.embedded?.close();
  }
}

/** Step 1: scenario, plan and guard — all before anything is opened or sent. */
async function prepare(options: RunOptions): Promise<{ scenario: Scenario; plan: Plan; guard: GuardDecision }> {
  const k = checkTimeScale(options.timeScale);
  const scenario = await loadScenario(options.scenarioFile);
  const plan = buildPlan(scenario, { timeScale: k });
  // The run starts now; `plan --at` asks the same question for another time.
  const guard = evaluateGuard(plan, { startAtMs: Date.now(), loopbackAsReal: options.loopbackAsReal });
  if (!guard.allowed) throw new GuardRefusal(guard.reasons);
  if (guard.real) for (const line of describeDecision(guard)) options.log(line);
  return { scenario, plan, guard };
}

/** Why the firing ended before the plan did: a stop signal, or a failure that makes the run fail. */
type Stop = { readonly kind: 'signal'; readonly error: Interrupted } | { readonly kind: 'failure'; readonly error: RunFailure };

interface Measurement {
  readonly recorder: Recorder;
  readonly engine: EngineResult;
  readonly stop: Stop | undefined;
  readonly tokenCalls: number;
  /** Wall ms, the monitor's resolution taken off; null when nothing was sampled. */
  readonly eventLoopDelayP99Ms: number | null;
  readonly eventLoopDelayMaxMs: number | null;
}

/** Step 3: the token, then the load. Never throws for a request that failed: its fate is its event. */
async function measure(plan: Plan, target: ResolvedTarget, events: EventLog, options: RunOptions): Promise<Measurement> {
  const scenario = plan.scenario;
  const k = plan.timeScale;
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

  const agent = new Agent({ connections: scenario.maxInFlight + 1, pipelining: 1 });
  // keepAlive: the engine's sleeps until the next arrival hold the process open; precise: send lag well under 1 ms.
  const clock = new ScaledClock(k, { keepAlive: true, precise: true });
  const recorder = new Recorder(
    plan.phases.map((p) => p.startMs + p.warmupMs),
    scenario.windowMs,
  );
  const tokens = new TokenProvider({
    baseUrl: target.baseUrl,
    audience: target.audience,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    credentialSource: target.credentialSource,
    dispatcher: agent,
    clock,
    timeoutMs: Math.max(1000, scenario.timeoutMs / k),
    signal: stop.signal,
    onFetch: (ms, status) => {
      recorder.tokenLatency.recordMs(ms);
      if (options.verbose) options.log(`token: POST ${target.baseUrl.replace(/\/+$/, '')}${API_PATHS.token} → ${status} in ${formatMs(ms)} (credentials from ${target.credentialSource}; token not shown)`);
    },
    onToken: (token) => options.secrets.addToken(token),
    onFatal: (failure) => {
      options.log(`loadproof: ${failure.code}: stopping the run (no access token can be had): no new requests; waiting for the answers in flight, then writing the report`);
      stopWith({ kind: 'failure', error: failure });
    },
    onWarning: (message) => options.log(`loadproof: warning: ${message}`),
  });
  const loop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  try {
    // The token comes first and is not part of the load: if it fails, nothing is sent and every request is unsent.
    await tokens.get().catch((error: unknown) => {
      if (error instanceof Interrupted) stopWith({ kind: 'signal', error });
      else if (error instanceof RunFailure) stopWith({ kind: 'failure', error });
      else throw error;
    });
    const textRng = createRng(scenario.payload.seed);
    const identify = createIdentify({
      baseUrl: target.baseUrl,
      dispatcher: agent,
      tokens,
      clock,
      timeScale: k,
      timeoutMs: scenario.timeoutMs,
      on429: { ...scenario.on429 },
      rng: createRng(scenario.arrivals.seed + 7),
      stop: stop.signal,
      cancel: cancel.signal,
    });
    if (stopped === undefined) {
      options.log(`loadproof: ${scenario.name}: ${plan.arrivals} requests over ${plan.durationMs / 1000} s of model time (${(plan.durationMs / k / 1000).toFixed(1)} s of wall time) against ${target.baseUrl}`);
    }
    loop.enable();
    const engine = await runPlan({
      plan,
      identify,
      // Texts are drawn in arrival order from the payload seed, so a run repeats.
      payload: () => generateNote(textRng, { minChars: scenario.payload.minChars, maxChars: scenario.payload.maxChars }),
      clock,
      maxInFlight: scenario.maxInFlight,
      signal: stop.signal,
      drainMs: scenario.timeoutMs,
      cancelInFlight: () => cancel.abort(),
      onEvent: (e) => {
        recorder.record(e);
        const line = options.secrets.redact(eventLine(plan, e));
        events.write(line);
        if (options.verbose) options.log(`request: ${line.trimEnd()}`);
      },
    });
    loop.disable();
    // The monitor samples the gap between timer wake-ups, which includes its own resolution: subtract it.
    const delayMs = (ns: number): number | null => (loop.count > 0 ? Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS) : null);
    // A signal or failure after the last answer stopped nothing: the measurement is whole.
    return { recorder, engine, stop: engine.interrupted ? stopped : undefined, tokenCalls: tokens.fetchCount, eventLoopDelayP99Ms: delayMs(loop.percentile(99)), eventLoopDelayMaxMs: delayMs(loop.max) };
  } finally {
    loop.disable();
    tokens.close();
    options.signal.removeEventListener('abort', onSignal);
    // Nothing of this run may keep the process alive: a renewal still in flight is abandoned.
    await agent.destroy();
  }
}

/** Step 4: the verdict, a pure function of the plan and what was measured. */
function judge(plan: Plan, measured: Measurement, envelope: EnvelopeJudgement): Verdict {
  const scenario = plan.scenario;
  const k = plan.timeScale;
  return evaluateVerdict({
    phases: plan.phases.map((p, i) => ({
      name: p.name,
      band: p.band,
      steady: measured.recorder.steady[i]!,
      all: measured.recorder.phases[i]!,
      envelope: envelope.phases[i]!,
      thresholds: [...scenario.thresholds.all, ...(scenario.thresholds.byPhase.get(p.name) ?? [])],
    })),
    documentedTargets: scenario.thresholds.documentedTargets,
    generator:
      measured.eventLoopDelayP99Ms === null || measured.eventLoopDelayMaxMs === null
        ? {}
        : { eventLoopDelayP99Ms: measured.eventLoopDelayP99Ms * k, eventLoopDelayMaxMs: measured.eventLoopDelayMaxMs * k },
  });
}

