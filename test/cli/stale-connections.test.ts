/**
 * A whole run against a server that resets every kept-alive connection on its second request (the request read,
 * never answered), as a gateway does when our request crosses its idle close: those requests are stale connections,
 * the client's. None is charged to the service as an error, the error check does not fail on them, none is sent twice
 * (the server may have read it), and the count is shown. The real CLI in a child process; 40 arrivals.
 *
 * The arrivals are 200 ms apart, so each connection's second request goes on it after it sat idle in the pool. At a
 * faster rate a stalled machine queues arrivals, and a connection that just answered is handed straight to one of
 * them: the server's close under that request is then rightly the service's reset (the pool saw no idle time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';
import { type ClosingServer, startClosingServer } from '../helpers/closing-server.js';

let server: ClosingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const N = 40;

describe('a run meeting stale connections', () => {
  it('counts them stale_connection, not reset: no error of the service, the verdict not a fail, the count shown', async () => {
    server = await startClosingServer((n) => (n === 2 ? 'rst' : undefined));
    const { file, out } = scenarioWorkspace(
      `name: stale\ndescription: every reused connection reset on its second request\ntarget: { environment: mock, baseUrl: "${server.url}" }\nphases:\n  - { name: steady, duration: 8s, rpm: 300 }\n`,
    );
    const { code, stdout, stderr } = await runCli(['run', '--no-charts', file, '--out', out], {
      LOADPROOF_CLIENT_ID: 'c',
      LOADPROOF_CLIENT_SECRET: 's'.repeat(24),
    });
    const [folder] = runFolders(out);
    const dir = join(out, folder!);
    const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number; outcome: string });
    expect(events).toHaveLength(N);
    const stale = events.filter((e) => e.outcome === 'stale_connection');
    expect(stale.length, stdout + stderr).toBeGreaterThan(0);
    expect(events.filter((e) => e.outcome !== 'ok' && e.outcome !== 'stale_connection')).toEqual([]);
    // Each request reached the server once: a POST that may have been read is never sent again.
    const seqs = server.seen.filter((r) => r.seq !== undefined).map((r) => r.seq);
    expect(seqs).toHaveLength(N);
    expect(new Set(seqs).size).toBe(N);

    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.overall.outcomes).toMatchObject({ reset: 0, stale_connection: stale.length });
    expect(Object.values(summary.overall.errors as Record<string, number>).every((n) => n === 0)).toBe(true);
    const errorRate = summary.verdict.checks.find((c: { id: string }) => c.id === 'error_rate');
    expect(errorRate.status).not.toBe('fail');
    expect(errorRate.reason).toContain(`but ${stale.length} requests were lost to stale connections`);
    expect(summary.verdict.status).toBe('inconclusive');
    expect(code, stdout + stderr).toBe(5);
    const shown = `phase steady: ${stale.length} of ${N} requests were lost to stale connections`;
    expect(stdout).toContain(shown);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(shown);
  });
});
