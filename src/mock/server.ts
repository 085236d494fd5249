/**
 * The mock server: a real HTTP server (node:http) reproducing the spec's endpoints and limits.
 * `startMockServer` resolves once it listens; `loadproof mock` and embedded runs use the same.
 */
import { IncomingMessage, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { describeValue, type Clock, monotonicMs, UsageError, createRng } from '../core/index.js';
import { DUE_HEADER, IDENTIFICATION_LIMITS, type ProfileName } from '../spec/index.js';
import { TokenStore } from './auth.js';
import { BodyBudget, type BufferedSnapshot } from './body-budget.js';
import { Fleet, type FleetSnapshot } from './fleet.js';
import { Gateway, type GatewayLimits, type GatewaySnapshot } from './gateway.js';
import { sendError } from './http.js';
import { serviceTimeModel } from './latency-model.js';
import { MODEL_LAG_WALL_MS, ModelClock } from './model-clock.js';
import { MockResponse } from './response.js';
import { MOCK_DEFAULTS } from './defaults.js';
import { type EndpointProfile, type FaultRates, type MockProfile, PROFILES } from './profiles.js';
import type { MockContext } from './routes/context.js';
import { LOG_PATH, STATS_PATH, allowedMethods, allowsMethod, findRoute } from './routes/table.js';
import { type EndpointCounts, type FaultCounts, MockCounters, RequestLog, type StatEndpoint } from './stats.js';

/** Overrides of identification's limits (spec defaults, or the profile's). */
export interface LimitOverrides {
  readonly sustainedRpm?: number;
  readonly burstRpm?: number;
  readonly burstMinutes?: number;
  readonly maxInFlight?: number;
  readonly queueLimit?: number;
  readonly timeoutS?: number;
}

export interface MockServerOptions {
  /** Interface to bind; loopback by default. */
  readonly host?: string;
  /** Port; 0 (default) picks a free one. */
  readonly port?: number;
  readonly profile?: ProfileName;
  /** k: the mock's clock runs k times fast (limits × k, times ÷ k on the wall). */
  readonly timeScale?: number;
  /** At k > 1, how far (wall ms) the model runs behind the real clock (ModelClock); MODEL_LAG_WALL_MS by default. */
  readonly modelLagWallMs?: number;
  /** Seed of the latency model and fault draws. */
  readonly seed?: number;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Access-token lifetime, model seconds. */
  readonly tokenTtlS?: number;
  /** The audience the token endpoint accepts; the server's base URL by default. */
  readonly audience?: string;
  readonly limits?: LimitOverrides;
  /** The same for the obfuscation endpoint (its own, higher limits by default). */
  readonly obfuscationLimits?: LimitOverrides;
  readonly faults?: Partial<FaultRates>;
  /** For tests: a ManualClock instead of the real, scaled one (timeScale is then only reported). */
  readonly clock?: Clock;
  /** Most connections open at once; further ones are closed as they arrive. */
  readonly maxConnections?: number;
  /** Most bytes of request bodies held at once across all requests (bytes); beyond it, 503. */
  readonly bodyBudgetBytes?: number;
  /** Wall-clock ms a client has to send a request's headers before 408 and close. */
  readonly headersTimeoutMs?: number;
  /** Wall-clock ms a client has to send a whole request (headers and body) before 408 and close. */
  readonly requestTimeoutMs?: number;
}

export { MOCK_DEFAULTS } from './defaults.js';

export interface EndpointStats {
  readonly gateway: GatewaySnapshot;
  readonly fleet: FleetSnapshot;
  readonly limits: GatewayLimits;
  readonly http429: number;
  readonly http504: number;
}

/** The answer of GET /__mock/stats. */
export interface MockStats {
  readonly profile: ProfileName;
  readonly timeScale: number;
  readonly seed: number;
  readonly startedAt: string;
  /** Model seconds since the server started. */
  readonly uptimeS: number;
  readonly requests: Readonly<Record<StatEndpoint, EndpointCounts>>;
  readonly identification: EndpointStats;
  readonly obfuscation: EndpointStats;
  readonly faults: FaultCounts;
  readonly memory: { readonly rssBytes: number; readonly heapUsedBytes: number };
  readonly connections: ConnectionStats;
  readonly buffered: BufferedSnapshot;
  /** Access tokens held (live, or expired less than a lifetime ago) and live ones evicted at the cap. */
  readonly tokens: { readonly held: number; readonly evicted: number };
}

/** Connections of the server since it started. */
export interface ConnectionStats {
  /** Connections open now. */
  readonly open: number;
  /** Connections accepted since the start. */
  readonly accepted: number;
  /** Connections closed on arrival because `max` were open. */
  readonly refused: number;
  /** The cap on connections open at once. */
  readonly max: number;
}

export interface MockServer {
  readonly url: string;
  readonly audience: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly profile: ProfileName;
  readonly timeScale: number;
  stats(): MockStats;
  close(): Promise<void>;
}

function positive(name: string, value: number | undefined, allowZero = false): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new UsageError(`${name}: expected a number ${allowZero ? '≥ 0' : '> 0'}, got ${value}`);
  }
}

/** The profile's identification endpoint with the overrides applied. */
function applyLimitOverrides(endpoint: EndpointProfile, o: LimitOverrides = {}): EndpointProfile {
  for (const [name, value] of Object.entries(o)) positive(`limits.${name}`, value as number | undefined, name === 'queueLimit');
  const base = endpoint.limits;
  const baseRate = base.rate ?? { sustainedRpm: IDENTIFICATION_LIMITS.sustainedRpm, burstRpm: IDENTIFICATION_LIMITS.burstRpm, burstMinutes: IDENTIFICATION_LIMITS.burstMaxMinutes };
  const rateTouched = o.sustainedRpm !== undefined || o.burstRpm !== undefined || o.burstMinutes !== undefined;
  const rate = rateTouched
    ? { sustainedRpm: o.sustainedRpm ?? baseRate.sustainedRpm, burstRpm: o.burstRpm ?? baseRate.burstRpm, burstMinutes: o.burstMinutes ?? baseRate.burstMinutes }
    : base.rate;
  if (rate !== null && rate.burstRpm < rate.sustainedRpm) {
    throw new UsageError(`limits.burstRpm: expected ≥ sustainedRpm (${rate.sustainedRpm}), got ${rate.burstRpm}`);
  }
  return {
    ...endpoint,
    limits: {
      rate,
      maxInFlight: o.maxInFlight ?? base.maxInFlight,
      queueLimit: o.queueLimit ?? base.queueLimit,
      timeoutMs: o.timeoutS !== undefined ? o.timeoutS * 1000 : base.timeoutMs,
    },
  };
}

function resolveProfile(options: MockServerOptions): MockProfile {
  const name = options.profile ?? MOCK_DEFAULTS.profile;
  // Object.hasOwn: a name is user text and must never find Object.prototype's members.
  const profile = Object.hasOwn(PROFILES, name) ? PROFILES[name] : undefined;
  if (profile === undefined) throw new UsageError(`profile: expected one of ${Object.keys(PROFILES).join(', ')}, got "${String(name)}"`);
  for (const [key, value] of Object.entries(options.faults ?? {})) {
    positive(`faults.${key}`, value, true);
    if (key.endsWith('Rate') && value > 1) throw new UsageError(`faults.${key}: expected a probability from 0 to 1, got ${value}`);
  }
  return {
    ...profile,
    identification: applyLimitOverrides(profile.identification, options.limits),
    obfuscation: applyLimitOverrides(profile.obfuscation, options.obfuscationLimits),
    faults: { ...profile.faults, ...options.faults },
  };
}

export { LOG_PATH, STATS_PATH };

/** The methods the mock takes on some route, for a CONNECT's Allow. */
const CONNECT_ALLOW = 'GET, HEAD, POST';

const headerNumber = (value: string | string[] | undefined): number | null => {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return value !== undefined && Number.isInteger(n) ? n : null;
};

/** The path of a request target: what is before its query. */
const pathOf = (target: string): string => {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
};

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const profile = resolveProfile(options);
  const timeScale = options.timeScale ?? MOCK_DEFAULTS.timeScale;
  positive('timeScale', timeScale);
  positive('tokenTtlS', options.tokenTtlS);
  const maxConnections = options.maxConnections ?? MOCK_DEFAULTS.maxConnections;
  const bodyBudgetBytes = options.bodyBudgetBytes ?? MOCK_DEFAULTS.bodyBudgetBytes;
  const headersTimeoutMs = options.headersTimeoutMs ?? MOCK_DEFAULTS.headersTimeoutMs;
  const requestTimeoutMs = options.requestTimeoutMs ?? MOCK_DEFAULTS.requestTimeoutMs;
  for (const [name, value] of Object.entries({ maxConnections, bodyBudgetBytes, headersTimeoutMs, requestTimeoutMs })) {
    if (!Number.isInteger(value) || value <= 0) throw new UsageError(`${name}: expected an integer > 0, got ${value}`);
  }
  if (headersTimeoutMs > requestTimeoutMs) throw new UsageError(`headersTimeoutMs: expected ≤ requestTimeoutMs (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  const port = options.port ?? MOCK_DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`port: expected an integer from 0 to 65535, got ${port}`);
  const seed = options.seed ?? MOCK_DEFAULTS.seed;
  // Time-scaled, the model runs behind the real clock, so a request is admitted at its due time (ModelClock).
  const modelClock = options.clock === undefined ? new ModelClock(timeScale, timeScale > 1 ? (options.modelLagWallMs ?? MODEL_LAG_WALL_MS) : 0) : undefined;
  const clock = options.clock ?? modelClock!;
  const clientId = options.clientId ?? MOCK_DEFAULTS.clientId;
  const clientSecret = options.clientSecret ?? MOCK_DEFAULTS.clientSecret;
  const startedAt = new Date().toISOString();

  const endpointOf = (endpoint: EndpointProfile, seedOffset: number): { gateway: Gateway; fleet: Fleet } => {
    const fleet = new Fleet(endpoint.fleet, serviceTimeModel(endpoint.latency, createRng(seed + seedOffset)), clock);
    return { fleet, gateway: new Gateway(endpoint.limits, fleet, clock, profile.stall, () => modelClock?.runDue()) };
  };
  const identification = endpointOf(profile.identification, 0);
  const obfuscation = endpointOf(profile.obfuscation, 1);
  const counters = new MockCounters();
  const requestLog = new RequestLog();
  let url = '';

  const ctx: MockContext = {
    clock,
    modelLagMs: modelClock?.lagMs() ?? 0,
    tokens: new TokenStore(clock, options.tokenTtlS ?? MOCK_DEFAULTS.tokenTtlS),
    counters,
    clients: new Map([[clientId, clientSecret]]),
    audience: () => options.audience ?? url,
    identification: identification.gateway,
    obfuscation: obfuscation.gateway,
    faults: profile.faults,
    faultRng: createRng(seed + 2),
    maxTextTokens: IDENTIFICATION_LIMITS.maxTextTokens,
    outputTokenCap: IDENTIFICATION_LIMITS.outputTokenCap,
    bodyBudget: new BodyBudget(bodyBudgetBytes),
    requestLog,
    stats: () => stats(),
  };
  const connections = { open: 0, accepted: 0, refused: 0 };

  const endpointStats = (e: { gateway: Gateway; fleet: Fleet }, limits: GatewayLimits, name: StatEndpoint): EndpointStats => ({
    gateway: e.gateway.snapshot(),
    fleet: e.fleet.snapshot(),
    limits,
    http429: counters.endpoints[name].byStatus['429'] ?? 0,
    http504: counters.endpoints[name].byStatus['504'] ?? 0,
  });

  const stats = (): MockStats => {
    const memory = process.memoryUsage();
    return {
      profile: profile.name,
      timeScale,
      seed,
      startedAt,
      uptimeS: clock.nowMs() / 1000,
      requests: structuredClone(counters.endpoints),
      identification: endpointStats(identification, profile.identification.limits, 'identification'),
      obfuscation: endpointStats(obfuscation, profile.obfuscation.limits, 'obfuscation'),
      faults: { ...counters.faults },
      memory: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
      connections: { ...connections, max: maxConnections },
      buffered: ctx.bodyBudget.snapshot(),
      tokens: { held: ctx.tokens.size, evicted: ctx.tokens.evicted },
    };
  };

  /**
   * When a response closes, whichever way: gives its body lease back, counts it under its endpoint
   * (answered, reset or client gone), and logs the pipelines' requests. One function for every
   * response (`this` is the response), not a closure per request.
   */
  function onResponseClose(this: MockResponse): void {
    this.lease?.release();
    const endpoint = this.endpoint;
    if (endpoint === null) return;
    const finished = this.writableFinished;
    if (finished) counters.answered(endpoint, this.statusCode);
    else if (this.reset) counters.reset(endpoint);
    else counters.gone(endpoint);
    if (endpoint === 'identification' || endpoint === 'obfuscation') {
      const headers = this.req.headers;
      requestLog.add({
        endpoint,
        arrivedAtMs: this.arrivedAtMs,
        answeredAtMs: this.answeredAtMs ?? clock.nowMs(),
        status: finished ? this.statusCode : null,
        retryAfterS: this.retryAfterS,
        seq: headerNumber(headers['x-loadproof-seq']),
        attempt: headerNumber(headers['x-loadproof-attempt']),
      });
    }
  }

  const failed = (res: MockResponse, error: unknown): void => {
    sendError(res, 500, 'internal_error', 'the mock failed to handle the request');
    process.emitWarning(`loadproof mock: handler failed: ${error instanceof Error ? error.message : String(error)}`);
  };

  /** When a request enters the model: at its due time when the client says it (DUE_HEADER) and the model runs behind, else now. */
  // Only a client on this machine shares its monotonic clock; a due time over a minute old is not one of its own.
  const arrive = (req: IncomingMessage, res: MockResponse): void => {
    const due = req.headers[DUE_HEADER];
    const dueMs = modelClock === undefined || ctx.modelLagMs === 0 || typeof due !== 'string' || !isLoopbackPeer(req.socket.remoteAddress) ? Number.NaN : Number(due);
    const arrival = Number.isFinite(dueMs) && monotonicMs() - dueMs < MAX_DUE_AGE_WALL_MS ? modelClock!.arrival(dueMs) : undefined;
    if (arrival === undefined || arrival.late) {
      res.arrivedAtMs = clock.nowMs();
      res.dueAtMs = res.arrivedAtMs;
      res.entryMs = 0;
      res.lagMs = 0;
      return;
    }
    res.arrivedAtMs = arrival.atMs;
    res.dueAtMs = arrival.dueAtMs;
    res.entryMs = arrival.entryMs;
    res.lagMs = ctx.modelLagMs;
  };

  const handle = (req: IncomingMessage, res: MockResponse): void => {
    const path = pathOf(req.url ?? '/');
    const route = findRoute(path);
    const allowed = route !== undefined && allowsMethod(route, req.method);
    // The mock's own routes are not counted, so the counts reconcile with a client's; 404s and 405s are 'other'.
    const endpoint = allowed ? route.endpoint : 'other';
    res.clock = clock;
    res.endpoint = endpoint;
    res.pipeline = endpoint === 'identification' || endpoint === 'obfuscation';
    res.maxBodyBytes = allowed ? route.maxBodyBytes : 0;
    res.on('close', onResponseClose);
    if (endpoint !== null) {
      arrive(req, res);
      counters.received(endpoint);
    }
    if (route === undefined) {
      sendError(res, 404, 'not_found', `no endpoint at ${path}`);
    } else if (!allowed) {
      sendError(res, 405, 'method_not_allowed', `${path} takes ${allowedMethods(route)}, got ${String(req.method)}`, { allow: allowedMethods(route) });
    } else {
      // Not an async wrapper: most handlers answer synchronously or return their one promise.
      try {
        route.handler(req, res, ctx)?.catch((error: unknown) => failed(res, error));
      } catch (error) {
        failed(res, error);
      }
    }
  };

  /** CONNECT asks for a tunnel, which the mock never gives: 405 with Allow, then close. */
  const refuseConnect = (req: IncomingMessage, socket: Duplex): void => {
    counters.received('other');
    const body = JSON.stringify({
      error: 'method_not_allowed',
      error_description: `CONNECT ${describeValue(req.url)}: the mock opens no tunnels; it takes ${CONNECT_ALLOW}`,
    });
    socket.on('error', () => undefined);
    socket.end(
      `HTTP/1.1 405 Method Not Allowed\r\nallow: ${CONNECT_ALLOW}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    counters.answered('other', 405);
  };

  const server = createServer<typeof IncomingMessage, typeof MockResponse>(
    {
      ServerResponse: MockResponse,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // How often Node looks for requests past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(5000, Math.floor(headersTimeoutMs / 2))),
    },
    handle,
  );
  server.maxConnections = maxConnections;
  server.on('connection', (socket: Socket) => {
    connections.open++;
    connections.accepted++;
    socket.once('close', () => connections.open--);
  });
  server.on('drop', () => connections.refused++);
  server.on('connect', refuseConnect);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${options.host ?? MOCK_DEFAULTS.host}:${port}`;
      reject(new UsageError(`cannot listen on ${where}: ${error.code ?? error.message}`, error.code === 'EADDRINUSE' ? 'choose another --port, or 0 for a free one' : undefined));
    });
    server.listen(port, options.host ?? MOCK_DEFAULTS.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host}:${address.port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    audience: options.audience ?? url,
    clientId,
    clientSecret,
    profile: profile.name,
    timeScale,
    stats,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        identification.gateway.stop();
        identification.fleet.stop();
        obfuscation.gateway.stop();
        obfuscation.fleet.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Wall ms after which a due time is not taken: not a delay of this machine's client (another host's clock, a stale header). */
const MAX_DUE_AGE_WALL_MS = 60_000;

/** A peer on this machine: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6. */
function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
