/**
 * Issue 27 case 15, loose ends, through the built CLI: the mock's audience, --metrics-host, what the
 * end of a run prints after a failed write, payload.source links, notice near year 9999, the strict
 * grammar of numbers and durations, and scenario files that are not UTF-8.
 */
import { describe, expect, it } from 'vitest';
import { runMain, scenarioWorkspace, runFolders } from '../helpers/cli.js';
import { scenarioAt } from '../helpers/reconcile.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock } = serversFor(K);

describe('the audience: the base URL exactly (spec), whatever the scenario spells', () => {
  it('a baseUrl with a trailing slash still gets its token (the audience sent is the base URL without it)', async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(`${s.url}/`, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    expect(stderr).not.toContain('403');
    expect(code).toBe(0);
    expect(s.stats().requests.token.received).toBe(1);
    expect(runFolders(out)).toHaveLength(1);
  });
});
