/**
 * Before a run's t = 0: the wait for a --start-at far ahead, the warm-up (connections opened, the
 * per-request code run over and over), the announcement of the load, and whether it is ready in time.
 */
import { collectGarbageNow, RunFailure, type TimeScale } from '../core/index.js';
import { arrivalsBefore, maxInFlightOf, type Plan } from '../plan/index.js';
import type { Clients, Measuring } from './measuring.js';
import { lateLimitWallMs } from './start-at.js';
import { warmUp } from './warm-up.js';

/** How long before --start-at a waiting run takes its token and warms up (wall ms). */
const START_AT_WARM_LEAD_MS = 5000;

/**
 * The most connections opened ahead of the load: enough for the first second at loopback latencies, few for a real
 * service.
 */
const MAX_WARM_CONNECTIONS = 64;

/**
 * --start-at far ahead: wait until shortly before it, so that the token and the warmed connections are fresh at t = 0.
 */
export async function waitForStartAt({ options, log, stopping }: Measuring): Promise<void> {
  if (options.startAtMs !== undefined && options.startAtMs - Date.now() > START_AT_WARM_LEAD_MS) {
    log(
      `loadproof: --start-at: waiting until ${new Date(options.startAtMs - START_AT_WARM_LEAD_MS).toISOString()} to warm up (the schedule starts at ${new Date(options.startAtMs).toISOString()})`,
    );
    await sleepUntil(options.startAtMs - START_AT_WARM_LEAD_MS, stopping.stop.signal);
  }
}

/**
 * Warm-up, not load: connections opened (no request on them) and the per-request code run over and
 * over, without the target (warm-up.ts), so the first arrivals do not pay for handshakes and cold code
 * that later ones do not. Then the load is announced, and --start-at checked: returns how late the run is ready.
 */
export async function warmUpAndAnnounce(m: Measuring, { pool, tokens }: Clients): Promise<number | undefined> {
  const { plan, options, log, scale } = m;
  const scenario = plan.scenario;
  const opened = await pool.open(warmConnectionCount(plan, scale), Math.max(1000, scale.toWallMs(scenario.timeoutMs)));
  await warmUp(plan, scale, options.secrets, m.target.permit);
  // The warm-up's garbage collected before t = 0, so that it does not set the heap's limits for the run
  // (src/core/full-collection.ts).
  collectGarbageNow();
  log(
    `loadproof: warm-up: ${tokens.fetchCount} token call${tokens.fetchCount === 1 ? '' : 's'} and ${opened} connection${opened === 1 ? '' : 's'} opened before the first arrival (no other request; not load, not judged)`,
  );
  const share =
    plan.shard === undefined
      ? ''
      : plan.documents !== undefined
        ? ` (shard ${plan.shard.index}/${plan.shard.count}: every ${plan.shard.count === 1 ? '' : `${ordinal(plan.shard.count)} `}document of the plan, from document ${plan.shard.index}, all of its pieces)`
        : ` (shard ${plan.shard.index}/${plan.shard.count}: every ${plan.shard.count === 1 ? '' : `${ordinal(plan.shard.count)} `}arrival of the plan, from seq ${plan.shard.index})`;
  log(
    `loadproof: ${scenario.name}: ${plan.arrivals} requests${share} over ${plan.durationMs / 1000} s of model time (${(scale.toWallMs(plan.durationMs) / 1000).toFixed(1)} s of wall time) against ${m.target.baseUrl}${throughProxy(m.target.proxy)}`,
  );
  return options.startAtMs === undefined ? undefined : checkReadyInTime(m, options.startAtMs);
}

/**
 * Ready after --start-at by more than 1 s of model time, the overdue arrivals would leave in one burst: nothing of the
 * load is sent.
 */
function checkReadyInTime({ log, stopping, scale }: Measuring, startAtMs: number): number {
  const aheadMs = startAtMs - Date.now();
  const lateLimitMs = lateLimitWallMs(scale);
  if (-aheadMs > lateLimitMs) {
    log(
      `loadproof: RUN_FAILED: --start-at: ready ${(-aheadMs).toFixed(0)} ms after it, more than ${lateLimitMs} ms (1 s of model time): no request is sent`,
    );
    stopping.with({
      kind: 'failure',
      error: new RunFailure(
        'RUN_FAILED',
        `--start-at ${new Date(startAtMs).toISOString()}: ready ${(-aheadMs).toFixed(0)} ms late, after the token call and warm-up (at most ${lateLimitMs} ms, 1 s of model time): every request is unsent`,
        'give every shard a start further ahead',
      ),
    });
  } else {
    log(
      aheadMs >= 0
        ? `loadproof: --start-at: the schedule starts at ${new Date(startAtMs).toISOString()}, in ${(aheadMs / 1000).toFixed(1)} s`
        : `loadproof: --start-at: started ${(-aheadMs).toFixed(0)} ms late; the lateness is in every arrival's send lag until it is caught up`,
    );
  }
  return Math.max(0, -aheadMs);
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

/** The proxy every connection goes through, by host and port only (never its credentials). */
const throughProxy = (proxy: { readonly shown: string } | undefined): string =>
  proxy === undefined ? '' : ` through proxy ${proxy.shown}`;

const ordinal = (n: number): string =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th')}`;
