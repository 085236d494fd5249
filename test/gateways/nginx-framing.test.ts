/**
 * Real nginx (Debian's) in front of loadproof's mock: answers framed with Content-Length and chunked, connections
 * kept for 5 requests or closed after each, and TLS with a private CA. After each run loadproof's attempts
 * reconcile with nginx's access log request by request (x-loadproof-seq/attempt), status by status; over plain
 * HTTP and TLS its latency agrees with nginx's $request_time (harness/latency-truth.ts says how closely, and why).
 * Time scale 1 so that both clocks are wall time; the mock answers every request in 20 ms (profile zero, a slow
 * fault on every answer), so a run of 80 requests takes 4 s.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fileText, type GatewayLine, type GatewayLog, gatewayLog, parseNginxLine } from './harness/access-log.js';
import { latencyTruth } from './harness/latency-truth.js';
import { hasNginx, type Nginx, nginxTitle, startNginx } from './harness/nginx.js';
import { makePrivateCa, type PrivateCa } from './harness/private-ca.js';
import { expectReconciled } from './harness/reconcile.js';
import { type GatewayRun, runLogged } from './harness/run.js';
import { startUpstream, type Upstream } from './harness/upstream.js';

/** The mock's and nginx's life: a bound on a hung file, not a speed check. */
const FILE_LIMIT_MS = 240_000;
const SERVERS = ['PLAIN', 'CHUNKED', 'KEEPALIVE5', 'CLOSE', 'TLS'] as const;
const SHORT_RUN = '{ name: load, duration: 2s, rpm: 1200 }';
const LATENCY_RUN = '{ name: load, duration: 4s, rpm: 1200 }';

describe.skipIf(!hasNginx)(nginxTitle('nginx in front of the mock: framing, connections, TLS'), () => {
  let upstream: Upstream | undefined;
  let nginx: Nginx | undefined;
  let log: GatewayLog;
  let ca: PrivateCa;

  beforeAll(async () => {
    ca = makePrivateCa(mkdtempSync(join(tmpdir(), 'loadproof-ca-')));
    upstream = await startUpstream(1, ['--profile', 'zero', '--fault-slow', '1', '--slow-ms', '20'], FILE_LIMIT_MS);
    nginx = await startNginx('nginx-framing.conf', SERVERS, {
      MOCK_PORT: upstream.port,
      CERT: ca.certFile,
      KEY: ca.keyFile,
    });
    log = gatewayLog(fileText(nginx.accessLog), parseNginxLine);
  });

  afterAll(async () => {
    await nginx?.daemon.stop();
    await upstream?.stop();
  });

  /** A run through nginx's server `name`, and nginx's lines of it. */
  function through(name: (typeof SERVERS)[number], phase: string, env: Record<string, string> = {}) {
    return runLogged(log, `http://127.0.0.1:${nginx!.ports.PLAIN}`, {
      baseUrl: `${name === 'TLS' ? 'https' : 'http'}://127.0.0.1:${nginx!.ports[name]}`,
      audience: upstream!.audience,
      timeScale: 1,
      phases: [phase],
      env,
    });
  }

  function expectLatencyTruth(run: GatewayRun, lines: GatewayLine[]): void {
    const truth = latencyTruth(run.summary, run.events, lines);
    const { matched, shorterThanGateway, medianExcessMs, medianBoundMs, p50, p95, percentileBoundMs } = truth;
    console.info(
      `latency truth: ${matched.length} requests; loadproof − nginx p50 ${(p50.loadproof - p50.gateway).toFixed(1)} ms, ` +
        `p95 ${(p95.loadproof - p95.gateway).toFixed(1)} ms (bound ${percentileBoundMs.toFixed(1)} ms); ` +
        `median service-time excess ${medianExcessMs.toFixed(1)} ms (bound ${medianBoundMs.toFixed(1)} ms)`,
    );
    expect(matched.length).toBe(run.summary.counts.planned);
    expect(shorterThanGateway).toEqual([]);
    expect(medianExcessMs).toBeLessThanOrEqual(medianBoundMs);
    for (const p of [p50, p95]) {
      expect(p.loadproof).toBeGreaterThanOrEqual(p.gateway - 1);
      expect(p.loadproof - p.gateway).toBeLessThanOrEqual(percentileBoundMs);
    }
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

  it('TLS with a private CA trusted through NODE_EXTRA_CA_CERTS: attempts reconcile, latency agrees', async () => {
    const { run, lines } = await through('TLS', LATENCY_RUN, { NODE_EXTRA_CA_CERTS: ca.caFile });
    expectReconciled(run, lines, 'nginx');
    expectLatencyTruth(run, lines);
  });

  it('TLS with the private CA not trusted: the run fails before any request (exit 4), nginx logs none', async () => {
    const { run, mine } = await through('TLS', SHORT_RUN);
    expect(run.code, run.stdout).toBe(4);
    expect(mine).toEqual([]);
  });
});
