/**
 * Real nginx over TLS, its certificate signed by a private CA made with openssl at test time, in front of
 * loadproof's mock: trusted through NODE_EXTRA_CA_CERTS (in the run's environment, read when its process starts),
 * loadproof's attempts reconcile with nginx's access log and its latency agrees with $request_time, handshakes and
 * all; not trusted, the run fails before its first request. Time scale 1, answers in 20 ms, as nginx-framing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fileText, type GatewayLog, gatewayLog, parseNginxLine } from './harness/access-log.js';
import { expectLatencyTruth } from './harness/latency-truth.js';
import { hasNginx, type Nginx, nginxTitle, startNginx } from './harness/nginx.js';
import { hasOpenssl, makePrivateCa, OPENSSL, type PrivateCa } from './harness/private-ca.js';
import { expectReconciled } from './harness/reconcile.js';
import { runLogged } from './harness/run.js';
import { startUpstream, type Upstream } from './harness/upstream.js';

const FILE_LIMIT_MS = 120_000;
const title = hasOpenssl
  ? nginxTitle('nginx over TLS with a private CA')
  : `nginx over TLS with a private CA (skipped: ${OPENSSL} not installed, to make the CA)`;

describe.skipIf(!hasNginx || !hasOpenssl)(title, () => {
  let upstream: Upstream | undefined;
  let nginx: Nginx | undefined;
  let log: GatewayLog;
  let ca: PrivateCa;

  beforeAll(async () => {
    ca = makePrivateCa(mkdtempSync(join(tmpdir(), 'loadproof-ca-')));
    upstream = await startUpstream(1, ['--profile', 'zero', '--fault-slow', '1', '--slow-ms', '20'], FILE_LIMIT_MS);
    nginx = await startNginx('nginx-tls.conf', ['TLS', 'PLAIN'], {
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

  const through = (phase: string, env: Record<string, string>) =>
    runLogged(log, `http://127.0.0.1:${nginx!.ports.PLAIN}`, {
      baseUrl: `https://127.0.0.1:${nginx!.ports.TLS}`,
      audience: upstream!.audience,
      timeScale: 1,
      phases: [phase],
      env,
    });

  it('the CA trusted through NODE_EXTRA_CA_CERTS: attempts reconcile, latency agrees with $request_time', async () => {
    const { run, lines } = await through('{ name: load, duration: 4s, rpm: 1200 }', {
      NODE_EXTRA_CA_CERTS: ca.caFile,
    });
    expectReconciled(run, lines, 'nginx');
    expectLatencyTruth(run, lines);
  });

  it('the CA not trusted: the run fails before any request (exit 4), nginx logs none', async () => {
    const { run, mine } = await through('{ name: load, duration: 2s, rpm: 1200 }', {});
    expect(run.code, run.stdout).toBe(4);
    expect(mine).toEqual([]);
  });
});
