/**
 * What the run says of the route to the target as the load meets it: the first redirect (never followed), and a proxy
 * that would not make a tunnel. A proxy's own refusal, or a proxy lost (refused, reset, closed, silent), ends the run
 * as a failure of the route: its refused requests never reached the service, and what it cannot reach is not the
 * service's to answer for.
 */
import { RunFailure } from '../core/index.js';
import type { Measuring } from './measuring.js';

/**
 * Says the first redirect the run met (where it pointed), and keeps it for run.json: counted as its status, never
 * followed.
 */
export function firstRedirectSaid(m: Measuring): (what: string) => void {
  return (what) => {
    if (m.route.firstRedirect !== undefined) return;
    m.route.firstRedirect = what;
    m.log(
      `loadproof: warning: the service answered ${what}; loadproof does not follow redirects: each is counted as its status (an error), and where it pointed is not measured`,
    );
  };
}

/**
 * A tunnel the proxy would not make: refused by the proxy itself or the proxy lost, the run stops (TARGET_UNREACHABLE,
 * naming it); the proxy could not reach the target (502/503/504), said once, each counted as the target's failure.
 */
export function proxyFailureHandled(m: Measuring): (what: string, routeFault: boolean) => void {
  let said = false;
  return (what, routeFault) => {
    if (!routeFault) {
      if (!said)
        m.log(
          `loadproof: warning: ${what}: the proxy could not reach the target; each such request is counted as the target's failure (refused, or a timeout for 504), as a direct connection's would be`,
        );
      said = true;
      return;
    }
    if (m.stopping.reason !== undefined) return;
    m.log(
      'loadproof: TARGET_UNREACHABLE: the route through the proxy failed (the proxy refused a tunnel, or was lost); stopping the run: no new requests; waiting for the answers in flight, then writing the report',
    );
    m.stopping.with({
      kind: 'failure',
      error: new RunFailure(
        'TARGET_UNREACHABLE',
        `the route through the proxy failed mid-run: ${what}; the requests it stopped never reached the service (unsent)`,
        "check the proxy variable named, or list the target's host in NO_PROXY; everything measured until then is in the report",
      ),
    });
  };
}
