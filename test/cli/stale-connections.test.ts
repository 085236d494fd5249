/**
 * A whole run against a server that closes a kept-alive connection as a gateway's idle timeout does: a request that
 * arrives after the connection sat idle (as the server saw it) 150 ms or more is read, never answered, and the
 * connection reset. Arrivals 300 ms apart, so the first reused connection meets that close, after it sat idle in our
 * pool well past the 100 ms floor: a stale connection, the client's. The pool then keeps connections idle under half
 * that long, so few more meet it. None is charged to the service as an error, none is sent twice (the server may
 * have read it), and the count is shown. The real CLI in a child process; 30 arrivals.
 *
 * On a busy machine the client may read an answer late and hand the connection at once to a queued request: the
 * server then saw it idle, the client did not, and the close is rightly a reset. So a reset is allowed, but only for a
 * request the server closed, and a stale one must be one the server closed too.
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

const N = 30;
/** The server's idle limit (ms): longer than the client's floor, shorter than the gap between arrivals. */
const SERVER_IDLE_LIMIT_MS = 150;

describe('a run meeting stale connections', () => {
  it('counts them stale_connection, not reset: no error of the service, the verdict not a fail, the count shown', async () => {
    server = await startClosingServer((_, idleMs) => (idleMs >= SERVER_IDLE_LIMIT_MS ? 'rst' : undefined));
    const { file, out } = scenarioWorkspace(
      `name: stale\ndescription: every connection idle 150 ms reset on its next request\ntarget: { environment: mock, baseUrl: "${server.url}" }\nphases:\n  - { name: steady, duration: 9s, rpm: 200 }\n`,
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
    const stale = events.filter((e) => e.outcome === 'stale_connection').map((e) => e.seq);
    const resets = events.filter((e) => e.outcome === 'reset').map((e) => e.seq);
    expect(events.filter((e) => !['ok', 'stale_connection', 'reset'].includes(e.outcome))).toEqual([]);
    // Each request reached the server once: a POST that may have been read is never sent again.
    const seqs = server.seen.filter((r) => r.seq !== undefined).map((r) => r.seq);
    expect(seqs).toHaveLength(N);
    expect(new Set(seqs).size).toBe(N);
    // The race happened, and stale_connection and reset are only ever requests the server closed. After its first
    // stale connection the client keeps connections idle under half that long, so the server closes few more (a
    // reset is one the pool handed straight on, a stall having kept it from reading the answer in time).
    const closed = server.closed.flatMap((c) => (c.seq === undefined ? [] : [c.seq]));
    expect([...stale, ...resets].sort((a, b) => a - b)).toEqual(closed.sort((a, b) => a - b));
    expect(stale.length, JSON.stringify(server.closed)).toBeGreaterThanOrEqual(1);
    expect(closed.length - resets.length, JSON.stringify(server.closed)).toBeLessThanOrEqual(3);

    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.overall.outcomes).toMatchObject({ reset: resets.length, stale_connection: stale.length });
    const shown = `phase steady: ${stale.length} of ${N} requests were lost to stale connections`;
    expect(stdout).toContain(shown);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(shown);
    // A reset the machine's stall made is the service's error: the verdict is then judged on it.
    if (resets.length > 0) return;
    expect(Object.values(summary.overall.errors as Record<string, number>).every((n) => n === 0)).toBe(true);
    const errorRate = summary.verdict.checks.find((c: { id: string }) => c.id === 'error_rate');
    expect(errorRate.status).not.toBe('fail');
    expect(errorRate.reason).toContain(`but ${stale.length} requests were lost to stale connections`);
    expect(summary.verdict.status).toBe('inconclusive');
    expect(code, stdout + stderr).toBe(5);
  });
});
