/**
 * The mock's entry: light on purpose. A run against a server of its own loads this (defaults, paths, the thread
 * that hosts an embedded mock) but never the mock's server code, which loads on the first startMockServer.
 * The latency simulation (simulate.ts) and the stall windows' truths (stall-windows.ts) are for calibration, benches
 * and tests.
 */
import type { MockServer, MockServerOptions } from './server.js';

export { MOCK_TOKEN_PREFIX } from './auth.js';
export { MOCK_DEFAULTS } from './defaults.js';
export { LOG_PATH, STATS_PATH } from './paths.js';
export { type FaultRates, type MockProfile, PROFILES } from './profiles.js';
export type { LimitOverrides, MockServer, MockServerOptions, MockStats } from './server.js';
export { type MockThread, type MockThreadOptions, startMockThread } from './thread.js';

/** Starts the mock in this thread, on a loopback port (ephemeral by default). */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  return (await import('./server.js')).startMockServer(options);
}
