/**
 * Step 3 of a run, measuring: the token (before any load), the warm-up, the wait for --start-at, then the
 * open-model engine, every request's fate recorded and streamed to events.ndjson as it completes. A stop
 * signal, or a token failure mid-run, ends the firing: requests in flight get the drain, those still
 * unanswered are cancelled, and every planned request still gets its line.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { attemptWallDeadlineMs, createApiCall, createIdentify, TokenProvider, ConnectionPool, MAX_OBFUSCATION_ANSWER_BYTES } from '../client/index.js';
import { ScaledClock, Interrupted, RunFailure, ThresholdAbort, createRng, collectGarbageNow, capYoungGeneration, formatMs, TimeScale } from '../core/index.js';
import type { TextSource } from '../texts/index.js';
import { runPlan, type EngineResult } from '../engine/index.js';
import type { EventSink, RunEnd } from '../judge/index.js';
import { type Plan, arrivalsBefore, maxInFlightOf } from '../plan/index.js';
import type { RunMetrics } from './metrics/run-metrics.js';
import { MsHistogram } from '../recorder/index.js';
import { API_PATHS } from '../spec/index.js';
import type { EventLog } from '../run-folder/index.js';
import { Progress } from './progress.js';
import { AbortWatch } from './abort-watch.js';
import type { ResolvedTarget } from '../target/index.js';
import { loopMonitorIntervalMs } from './loop-monitor.js';
import { RequestEvents } from './request-events.js';
import { DeidChain } from './deid-chain.js';
import { TargetWatch } from './target-watch.js';
import type { RunOptions } from './run-options.js';
import { lateLimitWallMs } from './start-at.js';
import { warmUp } from './warm-up.js';

/** How long before --start-at a waiting run takes its token and warms up (wall ms). */
const START_AT_WARM_LEAD_MS = 5000;

/** The most connections opened ahead of the load: enough for the first second at loopback latencies, few for a real service. */
const MAX_WARM_CONNECTIONS = 64;

/** Why the firing ended before the plan did: a stop signal, or a failure that makes the run fail. */
type Stop = { readonly kind: 'signal'; readonly error: Interrupted } | { readonly kind: 'failure'; readonly error: RunFailure } | { readonly kind: 'threshold'; readonly error: ThresholdAbort };

export interface Measurement {
  /** The run's end as recorded in run.json, but for the time and the files (added by the caller). */
  readonly end: Omit<RunEnd, 'endedAt' | 'files'>;
  /** What ended the run early and made it fail, if anything did. */
  readonly failure: RunFailure | undefined;
}

/** What the firing and its logs are given. */
export interface MeasureInput {
  readonly plan: Plan;
  readonly target: ResolvedTarget;
  readonly events: EventLog;
  readonly sink: EventSink;
  readonly texts: TextSource;
  readonly documentsLog: EventLog | undefined;
  readonly metrics: RunMetrics | undefined;
}

/** `stop` ends the firing (a signal, or a fatal token failure); `cancel` ends the drain. The first reason given is kept. */
class Stopping {
  readonly stop = new AbortController();
  readonly cancel = new AbortController();
  reason: Stop | undefined;

  with(reason: Stop): void {
    this.reason ??= reason;
    this.stop.abort();
  }
}

/** What every step of the measurement shares. */
interface Measuring extends MeasureInput {
  readonly options: RunOptions;
  readonly scale: TimeScale;
  readonly clock: ScaledClock;
  readonly progress: Progress;
  readonly abortWatch: AbortWatch;
  readonly stopping: Stopping;
  /** A line logged while the load runs first erases a terminal's progress line. */
  readonly log: (line: string) => void;
}

/** The connections and the token of a run. */
interface Clients {
  readonly maxInFlight: number;
  readonly pool: ConnectionPool;
  readonly obfuscationPool: ConnectionPool | undefined;
  readonly tokens: TokenProvider;
  readonly tokenLatency: MsHistogram;
  readonly watch: TargetWatch;
}

/** Step 3: the token, then the load. Never throws for a request that failed: its fate is its event. */
export async function measure(input: MeasureInput, options: RunOptions): Promise<Measurement> {
  const m = measuring(input, options);
  const onSignal = (): void => m.stopping.with({ kind: 'signal', error: new Interrupted('stopped by a signal') });
  if (options.signal.aborted) onSignal();
  else options.signal.addEventListener('abort', onSignal, { once: true });
  const clients = openClients(m);
  const loopIntervalMs = loopMonitorIntervalMs(m.plan.arrivals, m.scale.toWallMs(m.plan.durationMs));
  const loop = monitorEventLoopDelay({ resolution: loopIntervalMs });
  let stopCapCheck = (): void => {};
  try {
    await waitForStartAt(m);
    await takeToken(m, clients.tokens);
    // Time-scaled runs are against a mock, whose Server-Timing says each answer's model time in its service.
    const readServerTiming = m.scale.k > 1 && m.target.kind !== 'real';
    const identify = createIdentify({ ...callOptions(m, clients, readServerTiming), pool: clients.pool, rng: createRng(m.plan.scenario.arrivals.seed + 7), keepEntities: m.plan.documents !== undefined });
    const chain = deidChain(m, clients, readServerTiming);
    const startLateMs = m.stopping.reason === undefined ? await warmUpAndAnnounce(m, clients) : undefined;
    const requestEvents = recordingEvents(m, clients.watch);
    // From t = 0, V8's young generation stops growing at its first step: a long run's RSS does not step up late (src/core/young-generation.ts).
    stopCapCheck = capYoungGeneration();
    loop.enable();
    const engine = await fire(m, clients, { identify, chain, requestEvents, readServerTiming });
    // The obfuscation calls of the last documents: bounded by their own deadlines, cancelled with the drain.
    await chain?.drain();
    loop.disable();
    m.progress.stop();
    return measurementOf(m, clients, engine, loop, loopIntervalMs, startLateMs);
  } finally {
    m.progress.stop();
    stopCapCheck();
    loop.disable();
    // Nothing of this run may keep the process alive: a renewal still in flight is abandoned (and its connections closed).
    clients.tokens.close();
    clients.pool.close();
    clients.obfuscationPool?.close();
    options.signal.removeEventListener('abort', onSignal);
  }
}

function measuring(input: MeasureInput, options: RunOptions): Measuring {
  const scale = options.timeScale;
  // keepAlive: the engine's sleeps until the next arrival hold the process open.
  const clock = new ScaledClock(scale.k, { keepAlive: true });
  const progress = new Progress(input.plan, clock, options.progress ?? 'off', options.progressWrite ?? (() => {}), options.progressColumns);
  const log = (line: string): void => {
    progress.clear();
    options.log(line);
  };
  return { ...input, options, scale, clock, progress, abortWatch: new AbortWatch(input.plan), stopping: new Stopping(), log };
}

/**
 * Identification requests go through our own HTTP/1.1 client (one request per connection at a time);
 * the token endpoint, called a few times per run, through node:http (TokenProvider).
 */
function openClients(m: Measuring): Clients {
  const { plan, target, options, log } = m;
  // A shard holds its share of maxInFlight, so that n shards together hold no more than one run would.
  const maxInFlight = maxInFlightOf(plan);
  const pool = ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight);
  // mode deid: obfuscation calls on connections of their own (the endpoint has its own, higher limits).
  const obfuscationPool = plan.documents === undefined ? undefined : ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight, undefined, MAX_OBFUSCATION_ANSWER_BYTES);
  const tokenLatency = MsHistogram.create();
  // A target that stops answering ends the run as a failure, not as a verdict.
  const watch = new TargetWatch(m.scale);
  const tokens = new TokenProvider({
    permit: target.permit,
    baseUrl: target.baseUrl,
    audience: target.audience,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    credentialSource: target.credentialSource,
    clock: m.clock,
    timeoutMs: Math.max(1000, m.scale.toWallMs(plan.scenario.timeoutMs)),
    signal: m.stopping.stop.signal,
    onFetch: (ms, status) => {
      tokenLatency.recordMs(ms);
      if (options.verbose) log(`token: POST ${target.baseUrl.replace(/\/+$/, '')}${API_PATHS.token} → ${status} in ${formatMs(ms)} (credentials from ${target.credentialSource}; token not shown)`);
    },
    onToken: (token) => options.secrets.addToken(token),
    onFatal: (failure) => {
      log(`loadproof: ${failure.code}: stopping the run (no access token can be had): no new requests; waiting for the answers in flight, then writing the report`);
      m.stopping.with({ kind: 'failure', error: failure });
    },
    onWarning: (message) => log(`loadproof: warning: ${message}`),
  });
  return { maxInFlight, pool, obfuscationPool, tokens, tokenLatency, watch };
}

/** --start-at far ahead: wait until shortly before it, so that the token and the warmed connections are fresh at t = 0. */
async function waitForStartAt({ options, log, stopping }: Measuring): Promise<void> {
  if (options.startAtMs !== undefined && options.startAtMs - Date.now() > START_AT_WARM_LEAD_MS) {
    log(`loadproof: --start-at: waiting until ${new Date(options.startAtMs - START_AT_WARM_LEAD_MS).toISOString()} to warm up (the schedule starts at ${new Date(options.startAtMs).toISOString()})`);
    await sleepUntil(options.startAtMs - START_AT_WARM_LEAD_MS, stopping.stop.signal);
  }
}

/** The token comes first and is not part of the load: if it fails, nothing is sent and every request is unsent. */
async function takeToken({ stopping }: Measuring, tokens: TokenProvider): Promise<void> {
  await tokens.get().catch((error: unknown) => {
    if (error instanceof Interrupted) stopping.with({ kind: 'signal', error });
    else if (error instanceof RunFailure) stopping.with({ kind: 'failure', error });
    else throw error;
  });
}

/** What the identification and the obfuscation calls share. */
function callOptions(m: Measuring, clients: Clients, readServerTiming: boolean) {
  const scenario = m.plan.scenario;
  return { baseUrl: m.target.baseUrl, tokens: clients.tokens, clock: m.clock, timeScale: m.scale.k, timeoutMs: scenario.timeoutMs, readServerTiming, on429: { ...scenario.on429 }, stop: m.stopping.stop.signal, cancel: m.stopping.cancel.signal };
}

/** mode deid: each document's identification, then its obfuscation call, on the obfuscation pool. */
function deidChain(m: Measuring, clients: Clients, readServerTiming: boolean): DeidChain | undefined {
  if (clients.obfuscationPool === undefined) return undefined;
  const scenario = m.plan.scenario;
  const documentsLog = m.documentsLog!;
  return new DeidChain({
    plan: m.plan,
    texts: m.texts,
    obfuscate: createApiCall({ ...callOptions(m, clients, readServerTiming), pool: clients.obfuscationPool, rng: createRng(scenario.arrivals.seed + 11) }, API_PATHS.obfuscation),
    style: scenario.deid.style,
    concurrency: scenario.deid.concurrency,
    clock: m.clock,
    scale: m.scale,
    sink: m.sink.documents!,
    secrets: m.options.secrets,
    write: (line) => documentsLog.write(line),
  });
}

/**
 * Warm-up, not load: connections opened (no request on them) and the per-request code run over and
 * over, without the target (warm-up.ts), so the first arrivals do not pay for handshakes and cold code
 * that later ones do not. Then the load is announced, and --start-at checked: returns how late the run is ready.
 */
async function warmUpAndAnnounce(m: Measuring, { pool, tokens }: Clients): Promise<number | undefined> {
  const { plan, options, log, scale } = m;
  const scenario = plan.scenario;
  const opened = await pool.open(warmConnectionCount(plan, scale), Math.max(1000, scale.toWallMs(scenario.timeoutMs)));
  await warmUp(plan, scale, options.secrets, m.target.permit);
  // The warm-up's garbage collected before t = 0, so that it does not set the heap's limits for the run (src/core/full-collection.ts).
  collectGarbageNow();
  log(`loadproof: warm-up: ${tokens.fetchCount} token call${tokens.fetchCount === 1 ? '' : 's'} and ${opened} connection${opened === 1 ? '' : 's'} opened before the first arrival (no other request; not load, not judged)`);
  const share = plan.shard === undefined ? '' : ` (shard ${plan.shard.index}/${plan.shard.count}: every ${plan.shard.count === 1 ? '' : `${ordinal(plan.shard.count)} `}arrival of the plan, from seq ${plan.shard.index})`;
  log(`loadproof: ${scenario.name}: ${plan.arrivals} requests${share} over ${plan.durationMs / 1000} s of model time (${(scale.toWallMs(plan.durationMs) / 1000).toFixed(1)} s of wall time) against ${m.target.baseUrl}`);
  return options.startAtMs === undefined ? undefined : checkReadyInTime(m, options.startAtMs);
}

/** Ready after --start-at by more than 1 s of model time, the overdue arrivals would leave in one burst: nothing of the load is sent. */
function checkReadyInTime({ log, stopping, scale }: Measuring, startAtMs: number): number {
  const aheadMs = startAtMs - Date.now();
  const lateLimitMs = lateLimitWallMs(scale);
  if (-aheadMs > lateLimitMs) {
    log(`loadproof: RUN_FAILED: --start-at: ready ${(-aheadMs).toFixed(0)} ms after it, more than ${lateLimitMs} ms (1 s of model time): no request is sent`);
    stopping.with({ kind: 'failure', error: new RunFailure('RUN_FAILED', `--start-at ${new Date(startAtMs).toISOString()}: ready ${(-aheadMs).toFixed(0)} ms late, after the token call and warm-up (at most ${lateLimitMs} ms, 1 s of model time): every request is unsent`, 'give every shard a start further ahead') });
  } else {
    log(aheadMs >= 0 ? `loadproof: --start-at: the schedule starts at ${new Date(startAtMs).toISOString()}, in ${(aheadMs / 1000).toFixed(1)} s` : `loadproof: --start-at: started ${(-aheadMs).toFixed(0)} ms late; the lateness is in every arrival's send lag until it is caught up`);
  }
  return Math.max(0, -aheadMs);
}

/** Each request's fate, as it completes: its line, the progress, the live metrics, and the stops it may call for. */
function recordingEvents(m: Measuring, watch: TargetWatch): RequestEvents {
  const { plan, options, log, stopping, abortWatch } = m;
  return new RequestEvents({
    plan,
    sink: m.sink,
    watch,
    secrets: options.secrets,
    write: (line) => m.events.write(line),
    onTargetGone: (why) => {
      if (stopping.reason !== undefined) return;
      log(`loadproof: TARGET_UNREACHABLE: stopping the run: no new requests; waiting for the answers in flight, then writing the report`);
      stopping.with({ kind: 'failure', error: new RunFailure('TARGET_UNREACHABLE', why, 'everything measured until then is in the report') });
    },
    verboseLog: options.verbose ? log : undefined,
    onRecord: (record) => {
      m.progress.record(record);
      m.metrics?.record(record);
      const failed = abortWatch.active && stopping.reason === undefined ? abortWatch.record(record) : undefined;
      if (failed === undefined) return;
      log(`loadproof: THRESHOLD_ABORT: ${failed}; stopping the run: no new requests; waiting for the answers in flight, then writing the report`);
      stopping.with({ kind: 'threshold', error: new ThresholdAbort(failed) });
    },
  });
}

/** The load: the engine fires the plan from t = 0, each event to the recording and to the deid chain. */
async function fire(m: Measuring, clients: Clients, calls: { readonly identify: ReturnType<typeof createIdentify>; readonly chain: DeidChain | undefined; readonly requestEvents: RequestEvents; readonly readServerTiming: boolean }): Promise<EngineResult> {
  const { plan, options, clock, scale, stopping } = m;
  const { chain, identify, requestEvents } = calls;
  // --start-at: t = 0 at that instant on the run's clock (ahead: the engine sleeps until it; late: its arrivals are overdue).
  const scheduleStartMs = options.startAtMs === undefined ? clock.nowMs() : clock.nowMs() + scale.toModelMs(options.startAtMs - Date.now());
  m.progress.start(scheduleStartMs);
  return runPlan({
    plan,
    startMs: scheduleStartMs,
    identify: chain === undefined ? identify : chain.identify(identify),
    // Texts are drawn in arrival order from the payload seed, so a run repeats.
    payload: (seq) => m.texts.textFor(seq),
    clock,
    maxInFlight: clients.maxInFlight,
    signal: stopping.stop.signal,
    // A stopped run waits for the answers in flight as long as an attempt may wait.
    drainMs: scale.toModelMs(attemptWallDeadlineMs(plan.scenario.timeoutMs, scale.k, calls.readServerTiming)),
    cancelInFlight: () => stopping.cancel.abort(),
    onEvent: (e) => {
      requestEvents.handle(e);
      chain?.observe(e);
    },
    onStart: (startMs) => {
      chain?.start(startMs);
      m.metrics?.start(startMs, () => clock.nowMs());
    },
    ...(chain === undefined ? {} : { queued: () => chain.queued, admission: (seq: number) => chain.admission(seq) }),
  });
}

/** The run's end as run.json records it, and the failure that ended it, if one did. */
function measurementOf(m: Measuring, clients: Clients, engine: EngineResult, loop: IntervalHistogram, loopIntervalMs: number, startLateMs: number | undefined): Measurement {
  // The monitor samples the gap between timer wake-ups, which includes its own resolution: subtract it.
  const delayMs = (ns: number): number | null => (loop.count > 0 ? Math.max(0, ns / 1e6 - loopIntervalMs) : null);
  // A signal or failure after the last answer stopped nothing: the measurement is whole.
  // A target that died in the plan's last minute had no minute left to show it: its trailing silence says so.
  const goneAtEnd = engine.interrupted ? undefined : clients.watch.atEnd();
  const stoppedBy: Stop | undefined = engine.interrupted
    ? m.stopping.reason
    : goneAtEnd === undefined
      ? undefined
      : { kind: 'failure', error: new RunFailure('TARGET_UNREACHABLE', goneAtEnd, 'everything measured until then is in the report') };
  if (goneAtEnd !== undefined) m.log(`loadproof: TARGET_UNREACHABLE: ${goneAtEnd}`);
  const { fired, dropped, unsent, abandoned, interrupted, elapsedMs } = engine;
  return {
    end: {
      engine: { fired, dropped, unsent, abandoned, interrupted, elapsedMs },
      stop: stoppedBy === undefined ? null : { by: stoppedBy.kind, code: stoppedBy.error.code, message: stoppedBy.error.message },
      tokenCalls: clients.tokens.fetchCount,
      ...(startLateMs === undefined ? {} : { startLateMs: Math.round(startLateMs) }),
      tokenLatency: clients.tokenLatency.encode(),
      eventLoopDelayP99Ms: delayMs(loop.percentile(99)),
      eventLoopDelayMaxMs: delayMs(loop.max),
      payload: m.texts.record(),
    },
    failure: stoppedBy?.kind === 'failure' ? stoppedBy.error : undefined,
  };
}

/**
 * Connections to open before the first arrival: what the plan's first second of wall time may hold in
 * flight at once, at most maxInFlight and {@link MAX_WARM_CONNECTIONS}.
 */
function warmConnectionCount(plan: Plan, scale: TimeScale): number {
  return arrivalsBefore(plan, scale.toModelMs(1000), Math.min(maxInFlightOf(plan), MAX_WARM_CONNECTIONS));
}

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
