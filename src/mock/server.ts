/**
 * The mock server: a real HTTP server (node:http) reproducing the spec's endpoints and limits.
 * `startMockServer` resolves once it listens; `loadproof mock` and embedded runs use the same.
 * Its steps: the options checked (server-options.ts), the model's clock, the two modelled endpoints,
 * what the routes share (MockContext), the HTTP server and its connection policy, listening.
 */
import { createServer, IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { type Clock, createRng, UsageError } from '../core/index.js';
import { IDENTIFICATION_LIMITS, type ProfileName } from '../spec/index.js';
import { TokenStore } from './auth.js';
import { BodyBudget } from './body-budget.js';
import { Fleet } from './fleet.js';
import { Gateway } from './gateway.js';
import { serviceTimeModel } from './latency-model.js';
import { MODEL_LAG_WALL_MS, ModelClock } from './model-clock.js';
import type { EndpointProfile } from './profiles.js';
import { createRequestHandler, refuseConnect } from './request-handler.js';
import { MockResponse } from './response.js';
import type { MockContext } from './routes/context.js';
import { type MockConfig, type MockServerOptions, resolveConfig } from './server-options.js';
import { type MockEndpoint, type MockStats, readStats } from './server-stats.js';
import { MockCounters, RequestLog } from './stats.js';

export type { LimitOverrides, MockServerOptions } from './server-options.js';
export type { MockStats } from './server-stats.js';
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

type MockHttpServer = Server<typeof IncomingMessage, typeof MockResponse>;

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const config = resolveConfig(options);
  // Time-scaled, the model runs behind the real clock, so a request is admitted at its due time (ModelClock).
  const modelClock =
    options.clock === undefined
      ? new ModelClock(config.timeScale.k, config.timeScale.isReal ? 0 : (options.modelLagWallMs ?? MODEL_LAG_WALL_MS))
      : undefined;
  const clock = options.clock ?? modelClock!;
  const identification = createEndpoint(config, config.profile.identification, 0, clock, modelClock);
  const obfuscation = createEndpoint(config, config.profile.obfuscation, 1, clock, modelClock);
  let url = '';
  const ctx = createContext(
    config,
    clock,
    modelClock,
    { identification, obfuscation },
    () => options.audience ?? url,
    () => stats(),
  );
  const connections = { open: 0, accepted: 0, refused: 0, max: config.maxConnections };
  const startedAt = new Date().toISOString();
  const stats = (): MockStats =>
    readStats({
      profile: config.profile,
      timeScale: config.timeScale.k,
      seed: config.seed,
      startedAt,
      clock,
      counters: ctx.counters,
      identification,
      obfuscation,
      connections,
      bodyBudget: ctx.bodyBudget,
      tokens: ctx.tokens,
    });
  const server = createHttpServer(config, ctx, modelClock, connections);
  url = await listen(server, config);
  const close = closer(server, [identification, obfuscation]);
  return {
    url,
    audience: options.audience ?? url,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    profile: config.profile.name,
    timeScale: config.timeScale.k,
    stats,
    close,
  };
}

/** A modelled endpoint: its replicas (their latency drawn from the seed plus `seedOffset`) behind its gateway. */
function createEndpoint(
  config: MockConfig,
  endpoint: EndpointProfile,
  seedOffset: number,
  clock: Clock,
  modelClock: ModelClock | undefined,
): MockEndpoint {
  const fleet = new Fleet(
    endpoint.fleet,
    serviceTimeModel(endpoint.latency, createRng(config.seed + seedOffset)),
    clock,
  );
  return {
    fleet,
    gateway: new Gateway(endpoint.limits, fleet, clock, config.profile.stall, () => modelClock?.runDue()),
  };
}

/** What every route shares. */
function createContext(
  config: MockConfig,
  clock: Clock,
  modelClock: ModelClock | undefined,
  { identification, obfuscation }: { readonly identification: MockEndpoint; readonly obfuscation: MockEndpoint },
  audience: () => string,
  stats: () => MockStats,
): MockContext {
  return {
    clock,
    modelLagMs: modelClock?.lagMs() ?? 0,
    tokens: new TokenStore(clock, config.tokenTtlS),
    counters: new MockCounters(),
    clients: new Map([[config.clientId, config.clientSecret]]),
    audience,
    identification: identification.gateway,
    obfuscation: obfuscation.gateway,
    faults: config.profile.faults,
    entityDropRate: config.profile.entityDropRate,
    faultRng: createRng(config.seed + 2),
    maxTextTokens: IDENTIFICATION_LIMITS.maxTextTokens,
    outputTokenCap: IDENTIFICATION_LIMITS.outputTokenCap,
    bodyBudget: new BodyBudget(config.bodyBudgetBytes),
    requestLog: new RequestLog(),
    stats,
    omitRetryAfter: config.omitRetryAfter,
  };
}

/** The HTTP server, with its timeouts for slow senders and its cap on connections, counting them in `connections`. */
function createHttpServer(
  config: MockConfig,
  ctx: MockContext,
  modelClock: ModelClock | undefined,
  connections: { open: number; accepted: number; refused: number },
): MockHttpServer {
  const server = createServer<typeof IncomingMessage, typeof MockResponse>(
    {
      ServerResponse: MockResponse,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // How often Node looks for requests past those timeouts (its default is 30 s).
      connectionsCheckingInterval: Math.max(10, Math.min(5000, Math.floor(config.headersTimeoutMs / 2))),
    },
    createRequestHandler(ctx, modelClock),
  );
  server.maxConnections = config.maxConnections;
  server.on('connection', (socket: Socket) => {
    connections.open++;
    connections.accepted++;
    socket.once('close', () => connections.open--);
  });
  server.on('drop', () => connections.refused++);
  server.on('connect', (req: IncomingMessage, socket) => refuseConnect(ctx, req, socket));
  return server;
}

/** Listens on the configured host and port; resolves with the server's base URL. */
async function listen(server: MockHttpServer, config: MockConfig): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const where = `${config.host}:${config.port}`;
      reject(
        new UsageError(
          `cannot listen on ${where}: ${error.code ?? error.message}`,
          error.code === 'EADDRINUSE' ? 'choose another --port, or 0 for a free one' : undefined,
        ),
      );
    });
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** Stops the endpoints' timers and closes the server and every connection; the same promise on every call. */
function closer(server: MockHttpServer, endpoints: readonly MockEndpoint[]): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve) => {
      for (const e of endpoints) {
        e.gateway.stop();
        e.fleet.stop();
      }
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
}
