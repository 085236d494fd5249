/**
 * Real nginx (Debian's) in front of loadproof's mock: answers framed with Content-Length and chunked, connections
 * kept for 5 requests or closed after each (TLS: nginx-tls.test.ts). After each run loadproof's attempts reconcile
 * with nginx's access log request by request (x-loadproof-seq/attempt), status by status; over plain HTTP its
 * latency agrees with nginx's $request_time (harness/latency-truth.ts says how closely, and why).
 * Time scale 1 so that both clocks are wall time; the mock answers every request in 20 ms (profile zero, a slow
 * fault on every answer), so a run of 80 requests takes 4 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fileText, type GatewayLog, gatewayLog, parseNginxLine } from './harness/access-log.js';
import { expectLatencyTruth } from './harness/latency-truth.js';
import { hasNginx, type Nginx, nginxTitle, startNginx } from './harness/nginx.js';
import { expectReconciled } from './harness/reconcile.js';
import { runLogged } from './harness/run.js';
import { startUpstream, type Upstream } from './harness/upstream.js';

/** The mock's and nginx's life: a bound on a hung file, not a speed check. */
const FILE_LIMIT_MS = 240_000;
const SERVERS = ['PLAIN', 'CHUNKED', 'KEEPALIVE5', 'CLOSE'] as const;
const SHORT_RUN = '{ name: load, duration: 2s, rpm: 1200 }';
const LATENCY_RUN = '{ name: load, duration: 4s, rpm: 1200 }';

describe.skipIf(!hasNginx)(nginxTitle('nginx in front of the mock: framing and connections'), () => {
  let upstream: Upstream | undefined;
  let nginx: Nginx | undefined;
  let log: GatewayLog;

  beforeAll(async () => {
    upstream = await startUpstream(1, ['--profile', 'zero', '--fault-slow', '1', '--slow-ms', '20'], FILE_LIMIT_MS);
    nginx = await startNginx('nginx-framing.conf', SERVERS, { MOCK_PORT: upstream.port });
    log = gatewayLog(fileText(nginx.accessLog), parseNginxLine);
  });

  afterAll(async () => {
    await nginx?.daemon.stop();
    await upstream?.stop();
  });

  /** A run through nginx's server `name`, and nginx's lines of it. */
  function through(name: (typeof SERVERS)[number], phase: string) {
    return runLogged(log, `http://127.0.0.1:${nginx!.ports.PLAIN}`, {
      baseUrl: `http://127.0.0.1:${nginx!.ports[name]}`,
      audience: upstream!.audience,
      timeScale: 1,
      phases: [phase],
    });
  }

  it("plain HTTP: attempts reconcile with nginx's access log, and latency agrees with $request_time", async () => {
    const { run, lines } = await through('PLAIN', LATENCY_RUN);
    expectReconciled(run, lines, 'nginx');
    expectLatencyTruth(run, lines);
  });

  it('chunked answers (sub_filter, gzip on): every answer chunked, attempts reconcile', async () => {
    const { run, lines, mine } = await through('CHUNKED', SHORT_RUN);
    expect(mine.map((l) => l.fields.transferEncoding)).toEqual(mine.map(() => 'chunked'));
    expectReconciled(run, lines, 'nginx');
    expect(run.summary.overall.outcomes.ok).toBe(run.summary.counts.planned);
  });

  it('keepalive_requests 5: nginx closes every connection after its 5th answer, attempts reconcile', async () => {
    const { run, lines, mine } = await through('KEEPALIVE5', SHORT_RUN);
    const perConnection = mine.map((l) => Number(l.fields.connectionRequests));
    expect(Math.max(...perConnection)).toBe(5);
    expectReconciled(run, lines, 'nginx');
    expect(run.summary.overall.outcomes.ok).toBe(run.summary.counts.planned);
  });

  it('Connection: close (keepalive_timeout 0): one request per connection, attempts reconcile', async () => {
    const { run, lines, mine } = await through('CLOSE', SHORT_RUN);
    expect(new Set(mine.map((l) => l.fields.connection)).size).toBe(mine.length);
    expect(mine.every((l) => l.fields.connectionRequests === '1')).toBe(true);
    expectReconciled(run, lines, 'nginx');
    expect(run.summary.overall.outcomes.ok).toBe(run.summary.counts.planned);
  });
});
