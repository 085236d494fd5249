/**
 * The start of a run must not lag for want of connections. Before the first arrival the
 * run opens connections (no request on them) so the first second's requests do not wait for
 * handshakes the later ones do not; the warm-up is stated, and sends nothing but the token call.
 * Counted at the server, through the real CLI: no timing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';

const { stub } = serversFor(1);

describe('warm start', () => {
  it('opens its connections before the first arrival, sends no request but the token call before it, and says so', async () => {
    const s = await stub();
    // 10 requests/s for 2 s, at most 4 in flight: 4 connections are opened ahead (the token call has its own).
    const { file, out } = scenarioWorkspace(
      `name: warm\ndescription: warm start\ntarget: { environment: mock, baseUrl: "${s.url}" }\nmaxInFlight: 4\nphases:\n  - { name: a, duration: 2s, rpm: 600 }\nthresholds: { documentedTargets: false }\n`,
    );
    const { code, stderr } = await runCli(['run', '--no-charts', file, '--out', out], {}, 30_000);
    expect(code).toBe(0);
    expect(s.counts.connectionsAtFirstIdentification).toBeGreaterThanOrEqual(1 + 4);
    expect(s.counts.token).toBe(1);
    expect(s.counts.other).toBe(1); // GET /__mock/stats: is this loadproof's mock? (environment: mock only)
    expect(stderr).toMatch(
      /warm-up: 1 token call and 4 connections opened before the first arrival \(no other request; not load, not judged\)/,
    );
    // The warm-up is not load: the server saw exactly the planned requests.
    const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
    expect(s.counts.identification).toBe(summary.counts.planned);
  });
});
