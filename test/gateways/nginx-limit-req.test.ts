/**
 * nginx's limit_req in front of a mock without limits of its own (profile zero), so that only nginx refuses: a
 * limiter looser than the documented envelope gives 429s that are no finding; a clearly tighter one gives findings
 * against the service, with or without Retry-After; limit_req's default 503 is an error of the service, not a 429.
 * Every run's attempts reconcile with nginx's access log. Time scale 10: nginx's rates are per wall minute, so the
 * documented 100/min is 1000r/m there (configs/nginx-limit-req.conf).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { fileText, type GatewayLog, gatewayLog, parseNginxLine } from './harness/access-log.js';
import { hasNginx, type Nginx, nginxTitle, startNginx } from './harness/nginx.js';
import { expectReconciled } from './harness/reconcile.js';
import { runLogged } from './harness/run.js';
import { startUpstream, type Upstream } from './harness/upstream.js';

/** 10, not 20: 450/min at k = 20 is 150 requests a wall second, more than a busy 2-core machine keeps up with. */
const K = 10;
const FILE_LIMIT_MS = 240_000;
const SERVERS = ['LOOSE', 'TIGHT', 'TIGHT_RETRY_AFTER', 'TIGHT_503'] as const;
/**
 * The mock without limits or modelled latency: nginx is the only limiter. (The nominal profile's fleet, at its
 * minimum of replicas, saturates at 600/min: 504s, and 429s of its own queue.)
 */
const UNLIMITED = ['--profile', 'zero'];

const findings = (summary: any): number => summary.phases.reduce((n: number, p: any) => n + p.envelope.findings, 0);
const envelopeCheck = (summary: any): any[] =>
  summary.verdict.checks.filter((c: any) => c.id === 'http_429_in_envelope');

describe.skipIf(!hasNginx)(nginxTitle('nginx limit_req in front of the mock: the envelope judged'), () => {
  let upstream: Upstream | undefined;
  let nginx: Nginx | undefined;
  let log: GatewayLog;

  beforeAll(async () => {
    upstream = await startUpstream(K, UNLIMITED, FILE_LIMIT_MS);
    nginx = await startNginx('nginx-limit-req.conf', SERVERS, {
      MOCK_PORT: upstream.port,
      DOCUMENTED_RATE: 100 * K,
      LOOSE_RATE: 200 * K,
      TIGHT_RATE: 50 * K,
    });
    log = gatewayLog(fileText(nginx.accessLog), parseNginxLine);
  });

  afterAll(async () => {
    await nginx?.daemon.stop();
    await upstream?.stop();
  });

  const through = (name: (typeof SERVERS)[number], phase: string) =>
    runLogged(log, `http://127.0.0.1:${nginx!.ports.LOOSE}`, {
      baseUrl: `http://127.0.0.1:${nginx!.ports[name]}`,
      audience: upstream!.audience,
      timeScale: K,
      phases: [phase],
      extra: 'thresholds: { documentedTargets: false }',
    });

  it('twice the documented rate, the documented burst: its 429s (beyond the envelope) are no finding', async () => {
    // 450/min for 150 s: the documented bucket (500, +100/min) runs dry after 86 s, this one (500, +200/min) after
    // 120 s; its 429s come when the documented limits allow none either.
    const { run, lines, mine } = await through('LOOSE', '{ name: over, duration: 150s, rpm: 450 }');
    expectReconciled(run, lines, 'nginx');
    expect(mine.filter((l) => l.status === 429).length).toBeGreaterThan(0);
    expect(findings(run.summary)).toBe(0);
    expect(envelopeCheck(run.summary).every((c) => c.status !== 'fail')).toBe(true);
  });

  it('half the documented rate, a fifth of its burst, 429 without Retry-After: findings against the service', async () => {
    const { run, lines, mine } = await through('TIGHT', '{ name: spike, duration: 1m, rpm: 300 }');
    expectReconciled(run, lines, 'nginx');
    expect(mine.filter((l) => l.status === 429).every((l) => l.fields.retryAfter === '-')).toBe(true);
    expect(findings(run.summary)).toBeGreaterThan(0);
    expect(envelopeCheck(run.summary).some((c) => c.status === 'fail')).toBe(true);
    expect(run.code, run.stdout).toBe(1);
  });

  it('the same limiter, its 429 with Retry-After: 1: findings against the service, the header recorded', async () => {
    const { run, lines, mine } = await through('TIGHT_RETRY_AFTER', '{ name: spike, duration: 1m, rpm: 300 }');
    expectReconciled(run, lines, 'nginx');
    const refused = mine.filter((l) => l.status === 429);
    expect(refused.every((l) => l.fields.retryAfter === '1')).toBe(true);
    expect(run.summary.overall.retryAfterMs.count).toBe(refused.length);
    expect(findings(run.summary)).toBeGreaterThan(0);
    expect(run.code, run.stdout).toBe(1);
  });

  it("limit_req's default 503: errors of the service, counted as such, never a 429 finding", async () => {
    const { run, lines, mine } = await through('TIGHT_503', '{ name: spike, duration: 1m, rpm: 300 }');
    expectReconciled(run, lines, 'nginx');
    const refused = mine.filter((l) => l.status === 503).length;
    expect(refused).toBeGreaterThan(0);
    expect(run.summary.overall.outcomes.http_429).toBe(0);
    expect(run.summary.overall.outcomes.http_other).toBe(refused);
    expect(run.summary.overall.status['503']).toBe(refused);
    expect(findings(run.summary)).toBe(0);
    expect(run.summary.verdict.checks.find((c: any) => c.id === 'error_rate').status).toBe('fail');
    expect(run.code, run.stdout).toBe(1);
  });
});
