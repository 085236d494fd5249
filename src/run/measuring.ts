/**
 * What every step of a run's measurement shares (measure.ts, before-load.ts): its input, its clock and
 * progress, how it is stopped, and its clients (the connection pools and the token).
 */
import {
  ConnectionPool,
  MAX_OBFUSCATION_ANSWER_BYTES,
  type PoolExtras,
  TokenProvider,
  trustOptions,
} from '../client/index.js';
import {
  formatMs,
  type Interrupted,
  type RunFailure,
  ScaledClock,
  stalledMs,
  StallMeter,
  type ThresholdAbort,
  type TimeScale,
} from '../core/index.js';
import type { EventSink, RunEnd } from '../judge/index.js';
import { maxInFlightOf, type Plan } from '../plan/index.js';
import { MsHistogram } from '../recorder/index.js';
import type { EventLog } from '../run-folder/index.js';
import { parseDurationMs } from '../scenario/index.js';
import { API_PATHS } from '../spec/index.js';
import type { ResolvedTarget } from '../target/index.js';
import type { TextSource } from '../texts/index.js';
import { AbortWatch } from './abort-watch.js';
import type { RunMetrics } from './metrics/run-metrics.js';
import { Progress } from './progress.js';
import type { RunOptions } from './run-options.js';
import { TargetWatch } from './target-watch.js';

/** Why the firing ended before the plan did: a stop signal, or a failure that makes the run fail. */
export type Stop =
  | { readonly kind: 'signal'; readonly error: Interrupted }
  | { readonly kind: 'failure'; readonly error: RunFailure }
  | { readonly kind: 'threshold'; readonly error: ThresholdAbort };

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

/**
 * `stop` ends the firing (a signal, or a fatal token failure); `cancel` ends the drain. The first reason given is kept.
 */
export class Stopping {
  readonly stop = new AbortController();
  readonly cancel = new AbortController();
  reason: Stop | undefined;

  with(reason: Stop): void {
    this.reason ??= reason;
    this.stop.abort();
  }
}

/** What every step of the measurement shares. */
export interface Measuring extends MeasureInput {
  readonly options: RunOptions;
  readonly scale: TimeScale;
  readonly clock: ScaledClock;
  readonly progress: Progress;
  readonly abortWatch: AbortWatch;
  readonly stopping: Stopping;
  /** A line logged while the load runs first erases a terminal's progress line. */
  readonly log: (line: string) => void;
  /** The first redirect the service answered, as said (run.json keeps it for the reports); set once. */
  readonly route: { firstRedirect: string | undefined };
  /**
   * Time-scaled against a mock: each answer's time in the service is read from its Server-Timing, and an attempt's
   * timeout judged on its model time (src/client/attempt-deadline.ts).
   */
  readonly readServerTiming: boolean;
  /** This thread's own stalls while the run measures (src/core/stall-meter.ts). */
  readonly stalls: StallMeter;
}

/** The connections and the token of a run. */
export interface Clients {
  readonly maxInFlight: number;
  readonly pool: ConnectionPool;
  readonly obfuscationPool: ConnectionPool | undefined;
  readonly tokens: TokenProvider;
  readonly tokenLatency: MsHistogram;
  readonly watch: TargetWatch;
}

export function measuring(input: MeasureInput, options: RunOptions): Measuring {
  const scale = options.timeScale;
  // keepAlive: the engine's sleeps until the next arrival hold the process open.
  const clock = new ScaledClock(scale.k, { keepAlive: true });
  const progress = new Progress(
    input.plan,
    clock,
    options.progress ?? 'off',
    options.progressWrite ?? (() => {}),
    options.progressColumns,
  );
  const log = (line: string): void => {
    progress.clear();
    options.log(line);
  };
  return {
    ...input,
    options,
    scale,
    clock,
    progress,
    abortWatch: new AbortWatch(input.plan),
    stopping: new Stopping(),
    log,
    route: { firstRedirect: undefined },
    readServerTiming: scale.k > 1 && input.target.kind !== 'real',
    stalls: new StallMeter(),
  };
}

/**
 * The tool's own stalls so far (wall ms): the run's loop, and the embedded mock's thread when there is one. Their sum:
 * when both stall at once (the process not scheduled) it counts twice, which only lets an answer come a little later.
 */
function toolStalls(m: Measuring): () => number {
  const own = m.stalls.cells;
  const mock = m.target.embedded?.stallCells;
  return mock === undefined ? () => stalledMs(own) : () => stalledMs(own) + stalledMs(mock);
}

/** The least a token call is given before it counts as unanswered (wall ms). */
const TOKEN_TIMEOUT_FLOOR_MS = 5000;

/**
 * Identification requests go through our own HTTP/1.1 client (one request per connection at a time);
 * the token endpoint, called a few times per run, through node:http (TokenProvider).
 */
export function openClients(m: Measuring): Clients {
  const { plan, target, options, log } = m;
  // A shard holds its share of maxInFlight, so that n shards together hold no more than one run would.
  const maxInFlight = maxInFlightOf(plan);
  const idle = plan.scenario.target.idleConnection;
  const idleLifetimeMs = idle === undefined ? undefined : parseDurationMs(idle);
  const shared: PoolExtras = {
    // Every connection trusts the run's private CA, if any (--ca, target.tls.ca) besides Node's own.
    ...(target.ca === undefined ? {} : { tls: trustOptions(target.ca) }),
    ...(target.proxy === undefined ? {} : { proxy: target.proxy }),
    ...(idleLifetimeMs === undefined ? {} : { idleLifetimeMs }),
    ...(m.readServerTiming ? { stalledMs: toolStalls(m) } : {}),
  };
  const pool = ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight, shared);
  // mode deid: obfuscation calls on connections of their own (the endpoint has its own, higher limits).
  const obfuscationPool =
    plan.documents === undefined
      ? undefined
      : ConnectionPool.forUrl(target.permit, target.baseUrl, maxInFlight, {
          ...shared,
          maxAnswerBytes: MAX_OBFUSCATION_ANSWER_BYTES,
        });
  const tokenLatency = MsHistogram.create();
  // A target that stops answering ends the run as a failure, not as a verdict.
  const watch = new TargetWatch(m.scale);
  const tokens = new TokenProvider({
    permit: target.permit,
    baseUrl: target.baseUrl,
    proxy: target.proxy,
    ca: target.ca,
    audience: target.audience,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    credentialSource: target.credentialSource,
    clock: m.clock,
    // At least 5 s of wall time whatever k: a token call is no request of the load and is not judged, and a busy
    // machine (our own event loop, the embedded mock's thread starting) must not end a run for want of a second.
    timeoutMs: Math.max(TOKEN_TIMEOUT_FLOOR_MS, m.scale.toWallMs(plan.scenario.timeoutMs)),
    signal: m.stopping.stop.signal,
    onFetch: (ms, status) => {
      tokenLatency.recordMs(ms);
      if (options.verbose)
        log(
          `token: POST ${target.baseUrl.replace(/\/+$/, '')}${API_PATHS.token} → ${status} in ${formatMs(ms)} (credentials from ${target.credentialSource}; token not shown)`,
        );
    },
    onToken: (token) => options.secrets.addToken(token),
    onFatal: (failure) => {
      log(
        `loadproof: ${failure.code}: stopping the run (no access token can be had): no new requests; waiting for the answers in flight, then writing the report`,
      );
      m.stopping.with({ kind: 'failure', error: failure });
    },
    onWarning: (message) => log(`loadproof: warning: ${message}`),
  });
  return { maxInFlight, pool, obfuscationPool, tokens, tokenLatency, watch };
}
