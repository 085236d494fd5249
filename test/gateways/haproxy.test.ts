/**
 * Real haproxy (Debian's) in front of loadproof's mock: a rate limit that denies with 429 (a stick table's
 * http_req_rate), and a server taking one request at a time whose queue times out (503) and whose slow answers
 * time out (504). loadproof's attempts, retries included, reconcile with haproxy's log by x-loadproof-seq and
 * x-loadproof-attempt, status by status as logged. Time scale 1: the mock answers at once, 30 % of its answers
 * 200 ms late (a seeded slow fault), so the queue and the timeouts happen in the same wall time at any speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type GatewayLog, gatewayLog, parseHaproxyLine } from './harness/access-log.js';
import { type Haproxy, haproxyTitle, hasHaproxy, startHaproxy } from './harness/haproxy.js';
import { expectReconciled } from './harness/reconcile.js';
import { runLogged } from './harness/run.js';
import { startUpstream, type Upstream } from './harness/upstream.js';

const FILE_LIMIT_MS = 180_000;
const SLOW_ANSWERS = ['--profile', 'zero', '--fault-slow', '0.3', '--slow-ms', '200', '--seed', '7'];

describe.skipIf(!hasHaproxy)(haproxyTitle('haproxy in front of the mock: deny 429, a maxconn queue'), () => {
  let upstream: Upstream | undefined;
  let haproxy: Haproxy | undefined;
  let log: GatewayLog;

  beforeAll(async () => {
    upstream = await startUpstream(1, SLOW_ANSWERS, FILE_LIMIT_MS);
    haproxy = await startHaproxy('haproxy.cfg', ['RATE', 'QUEUE'], {
      MOCK_PORT: upstream.port,
      RATE_LIMIT: 20,
      QUEUE_TIMEOUT: '50ms',
      SERVER_TIMEOUT: '100ms',
    });
    log = gatewayLog(() => haproxy!.daemon.output(), parseHaproxyLine);
  });

  afterAll(async () => {
    await haproxy?.daemon.stop();
    await upstream?.stop();
  });

  const through = (name: 'RATE' | 'QUEUE', extra: string) =>
    runLogged(log, `http://127.0.0.1:${haproxy!.ports.RATE}`, {
      baseUrl: `http://127.0.0.1:${haproxy!.ports[name]}`,
      audience: upstream!.audience,
      timeScale: 1,
      phases: ['{ name: load, duration: 3s, rpm: 1200 }'],
      extra: `thresholds: { documentedTargets: false }\n${extra}`,
    });

  it('deny_status 429 on a request rate, retried: every attempt reconciles with the log', async () => {
    const { run, lines, mine } = await through(
      'RATE',
      'on429: { policy: retry, maxAttempts: 3, baseDelay: 100ms, maxDelay: 400ms }',
    );
    expectReconciled(run, lines, 'haproxy');
    expect(mine.filter((l) => l.status === 429).length).toBeGreaterThan(0);
    expect(mine.some((l) => l.attempt === '3')).toBe(true);
    expect(run.summary.overall.attempts).toBe(mine.length);
  });

  it('maxconn 1 with timeout queue (503) and timeout server (504): every attempt reconciles with the log', async () => {
    const { run, lines, mine } = await through('QUEUE', '');
    expectReconciled(run, lines, 'haproxy');
    const statuses = new Set(mine.map((l) => l.status));
    expect([...statuses].sort()).toEqual([200, 503, 504]);
    expect(run.summary.overall.status['503']).toBe(mine.filter((l) => l.status === 503).length);
    expect(run.summary.overall.outcomes.http_504).toBe(mine.filter((l) => l.status === 504).length);
  });
});
