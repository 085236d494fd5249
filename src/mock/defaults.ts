/** The mock server's defaults: apart from server.ts so that the CLI can show them without loading the mock. */
import type { ProfileName } from '../spec/index.js';

export const MOCK_DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  profile: 'nominal' as ProfileName,
  timeScale: 1,
  seed: 1,
  clientId: 'loadproof-mock-client',
  clientSecret: 'loadproof-mock-secret',
  tokenTtlS: 3600,
  // Both pipelines' in-flight gates and queues (128 + 64 + 512 + 256 = 960) plus headroom for the
  // token, session and stats calls; a load generator opens at most maxInFlight + 1 connections.
  maxConnections: 1024,
  bodyBudgetBytes: 32 * 1024 * 1024,
  // Wall clock, not model time: even at k = 1 a client sends a request at once, so these only end
  // senders that stall (slowloris, a body that never ends).
  headersTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
} as const;
