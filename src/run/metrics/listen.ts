/**
 * `--metrics-host`: the scrape endpoint's address, checked as every listening address is (src/core/listen-host.ts);
 * anything but loopback is said loudly, since /metrics has no authentication and no TLS.
 */
import { checkListenHost, type Exposure } from '../../core/index.js';

export { type Exposure, exposureOf } from '../../core/index.js';

/** The host to listen on, from the flag's text; a UsageError (exit 2) for an empty, blank or ambiguous one. */
export function checkMetricsHost(text: string): string {
  return checkListenHost('--metrics-host', text);
}

/** The line said on stderr when the endpoint is reachable from elsewhere, or null for loopback. */
export function exposureWarning(exposure: Exposure, url: string): string | null {
  if (exposure === 'loopback') return null;
  const where =
    exposure === 'every-interface'
      ? 'on EVERY network interface of this host'
      : 'on a network interface (not loopback)';
  return `loadproof: WARNING: --metrics-host: ${url} listens ${where}: anyone who can reach it can read this run's live metrics (scenario name, environment, time scale, request counts by status and outcome, latencies, rates, in flight), without authentication or TLS`;
}
