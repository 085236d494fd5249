/**
 * Step 3 of a run, measuring: the token (before any load), the warm-up, the wait for --start-at, then the
 * open-model engine, every request's fate recorded and streamed to events.ndjson as it completes. A stop
 * signal, or a token failure mid-run, ends the firing: requests in flight get the drain, those still
 * unanswered are cancelled, and every planned request still gets its line.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

import { attemptWallDeadlineMs, createApiCall, createIdentify, type TokenProvider } from '../client/index.js';
import { capYoungGeneration, createRng, Interrupted, RunFailure, ThresholdAbort } from '../core/index.js';
import { type EngineResult, runPlan } from '../engine/index.js';
import { API_PATHS } from '../spec/index.js';
import { waitForStartAt, warmUpAndAnnounce } from './before-load.js';
import type { DeidChain } from './deid-chain.js';
import { loopMonitorIntervalMs } from './loop-monitor.js';
import {
  type Clients,
  type MeasureInput,
  type Measurement,
  type Measuring,
  measuring,
  openClients,
  type Stop,
} from './measuring.js';
import { RequestEvents } from './request-events.js';
import { firstRedirectSaid, proxyFailureHandled } from './route-warnings.js';
import type { RunOptions } from './run-options.js';
import type { TargetWatch } from './target-watch.js';

type MockLag = Awaited<ReturnType<NonNullable<Measuring['target']['embedded']>['lag']>>;

/** The mock's lag as run.json keeps it: to the tenth of a wall ms, the model's to the ms. */
const roundedLag = (lag: MockLag): MockLag => ({
  p99WallMs: Math.round(lag.p99WallMs * 10) / 10,
  maxWallMs: Math.round(lag.maxWallMs * 10) / 10,
  windowWallMs: lag.windowWallMs,
  modelMs: Math.round(lag.modelMs),
});

export type { Measurement } from './measuring.js';

/** Step 3: the token, then the load. Never throws for a request that failed: its fate is its event. */
export async function measure(input: MeasureInput, options: RunOptions): Promise<Measurement> {
  const m = measuring(input, options);
  const onSignal = (): void => m.stopping.with({ kind: 'signal', error: new Interrupted('stopped by a signal') });
  if (options.signal.aborted) onSignal();
  else options.signal.addEventListener('abort', onSignal, { once: true });
  const clients = openClients(m);
  // An answer's deadline grows by the tool's own stalls (src/client/attempt-deadline.ts): counted from here.
  if (m.readServerTiming) m.stalls.start();
  const loopIntervalMs = loopMonitorIntervalMs(m.plan.arrivals, m.scale.toWallMs(m.plan.durationMs));
  const loop = monitorEventLoopDelay({ resolution: loopIntervalMs });
  let stopCapCheck = (): void => {};
  try {
    await waitForStartAt(m);
    await takeToken(m, clients.tokens);
    const readServerTiming = m.readServerTiming;
    const identify = createIdentify({
      ...callOptions(m, clients, readServerTiming),
      pool: clients.pool,
      rng: createRng(m.plan.scenario.arrivals.seed + 7),
      keepEntities: m.plan.documents !== undefined,
    });
    const chain = await deidChain(m, clients, readServerTiming);
    const startLateMs = m.stopping.reason === undefined ? await warmUpAndAnnounce(m, clients) : undefined;
    const requestEvents = recordingEvents(m, clients.watch);
    // From t = 0, V8's young generation stops growing at its first step: a long run's RSS does not step up late
    // (src/core/young-generation.ts).
    stopCapCheck = capYoungGeneration();
    loop.enable();
    // The embedded mock's own lag counts from here: its start and the warm-up are not the load's.
    await m.target.embedded?.lag();
    const engine = await fire(m, clients, { identify, chain, requestEvents, readServerTiming });
    // The obfuscation calls of the last documents: bounded by their own deadlines, cancelled with the drain.
    await chain?.drain();
    loop.disable();
    const mockLag = await m.target.embedded?.lag();
    m.progress.stop();
    return measurementOf(m, clients, engine, loop, loopIntervalMs, startLateMs, mockLag);
  } finally {
    m.progress.stop();
    stopCapCheck();
    loop.disable();
    m.stalls.stop();
    // Nothing of this run may keep the process alive: a renewal still in flight is abandoned (and its connections
    // closed).
    clients.tokens.close();
    clients.pool.close();
    clients.obfuscationPool?.close();
    options.signal.removeEventListener('abort', onSignal);
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
  return {
    baseUrl: m.target.baseUrl,
    tokens: clients.tokens,
    clock: m.clock,
    timeScale: m.scale.k,
    timeoutMs: scenario.timeoutMs,
    readServerTiming,
    on429: { ...scenario.on429 },
    stop: m.stopping.stop.signal,
    cancel: m.stopping.cancel.signal,
    onRedirect: firstRedirectSaid(m),
    onProxyFailure: proxyFailureHandled(m),
  };
}

/**
 * mode deid: each document's identification, then its obfuscation call, on the obfuscation pool. Its code (and the
 * deid folder's) loads only for such a run.
 */
async function deidChain(m: Measuring, clients: Clients, readServerTiming: boolean): Promise<DeidChain | undefined> {
  if (clients.obfuscationPool === undefined) return undefined;
  const { DeidChain } = await import('./deid-chain.js');
  const scenario = m.plan.scenario;
  const documentsLog = m.documentsLog!;
  return new DeidChain({
    plan: m.plan,
    texts: m.texts,
    obfuscate: createApiCall(
      {
        ...callOptions(m, clients, readServerTiming),
        pool: clients.obfuscationPool,
        rng: createRng(scenario.arrivals.seed + 11),
        // Its output, read for the documents' known PHI, then let go with the document.
        keepOutput: true,
      },
      API_PATHS.obfuscation,
    ),
    style: scenario.deid.style,
    concurrency: scenario.deid.concurrency,
    clock: m.clock,
    scale: m.scale,
    sink: m.sink.documents!,
    secrets: m.options.secrets,
    write: (line) => documentsLog.write(line),
  });
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
      log(
        `loadproof: TARGET_UNREACHABLE: stopping the run: no new requests; waiting for the answers in flight, then writing the report`,
      );
      stopping.with({
        kind: 'failure',
        error: new RunFailure('TARGET_UNREACHABLE', why, 'everything measured until then is in the report'),
      });
    },
    verboseLog: options.verbose ? log : undefined,
    onRecord: (record) => {
      m.progress.record(record);
      m.metrics?.record(record);
      const failed = abortWatch.active && stopping.reason === undefined ? abortWatch.record(record) : undefined;
      if (failed === undefined) return;
      log(
        `loadproof: THRESHOLD_ABORT: ${failed}; stopping the run: no new requests; waiting for the answers in flight, then writing the report`,
      );
      stopping.with({ kind: 'threshold', error: new ThresholdAbort(failed) });
    },
  });
}

/** The load: the engine fires the plan from t = 0, each event to the recording and to the deid chain. */
async function fire(
  m: Measuring,
  clients: Clients,
  calls: {
    readonly identify: ReturnType<typeof createIdentify>;
    readonly chain: DeidChain | undefined;
    readonly requestEvents: RequestEvents;
    readonly readServerTiming: boolean;
  },
): Promise<EngineResult> {
  const { plan, options, clock, scale, stopping } = m;
  const { chain, identify, requestEvents } = calls;
  // --start-at: t = 0 at that instant on the run's clock (ahead: the engine sleeps until it; late: its arrivals are
  // overdue).
  const scheduleStartMs =
    options.startAtMs === undefined ? clock.nowMs() : clock.nowMs() + scale.toModelMs(options.startAtMs - Date.now());
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
function measurementOf(
  m: Measuring,
  clients: Clients,
  engine: EngineResult,
  loop: IntervalHistogram,
  loopIntervalMs: number,
  startLateMs: number | undefined,
  mockLag: MockLag | undefined,
): Measurement {
  // The monitor samples the gap between timer wake-ups, which includes its own resolution: subtract it.
  const delayMs = (ns: number): number | null => (loop.count > 0 ? Math.max(0, ns / 1e6 - loopIntervalMs) : null);
  // A signal or failure after the last answer stopped nothing: the measurement is whole.
  // A target that died in the plan's last minute had no minute left to show it: its trailing silence says so.
  const goneAtEnd = engine.interrupted ? undefined : clients.watch.atEnd();
  const stoppedBy: Stop | undefined = engine.interrupted
    ? m.stopping.reason
    : goneAtEnd === undefined
      ? undefined
      : {
          kind: 'failure',
          error: new RunFailure('TARGET_UNREACHABLE', goneAtEnd, 'everything measured until then is in the report'),
        };
  if (goneAtEnd !== undefined) m.log(`loadproof: TARGET_UNREACHABLE: ${goneAtEnd}`);
  const { fired, dropped, unsent, abandoned, interrupted, elapsedMs } = engine;
  return {
    end: {
      engine: { fired, dropped, unsent, abandoned, interrupted, elapsedMs },
      stop:
        stoppedBy === undefined
          ? null
          : { by: stoppedBy.kind, code: stoppedBy.error.code, message: stoppedBy.error.message },
      tokenCalls: clients.tokens.fetchCount,
      ...(startLateMs === undefined ? {} : { startLateMs: Math.round(startLateMs) }),
      tokenLatency: clients.tokenLatency.encode(),
      eventLoopDelayP99Ms: delayMs(loop.percentile(99)),
      eventLoopDelayMaxMs: delayMs(loop.max),
      ...(mockLag === undefined ? {} : { mockLag: roundedLag(mockLag) }),
      payload: m.texts.record(),
      ...(m.route.firstRedirect === undefined ? {} : { firstRedirect: m.route.firstRedirect }),
    },
    failure: stoppedBy?.kind === 'failure' ? stoppedBy.error : undefined,
  };
}
