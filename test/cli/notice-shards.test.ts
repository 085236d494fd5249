/** `loadproof notice --shards n`: n shards are n processes, each with its own OAuth token call; the notice says so. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';

const SANDBOX = readFileSync(fileURLToPath(new URL('../../scenarios/sandbox-burst.yaml', import.meta.url)), 'utf8');
const UNANNOUNCED = SANDBOX.replace(/^notice:\n(?: .*\n)+/m, '');
const AT = ['--at', '2026-12-15T09:00:00Z', '--announce-on', '2026-11-26'];

describe('loadproof notice --shards', () => {
  it('announces one token call per shard; one without --shards', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const three = join(dir, 'three.md');
    const sharded = await runMain(['notice', file, ...AT, '--shards', '3', '--out', three, '--json']);
    expect(sharded.code, sharded.stderr).toBe(0);
    expect(JSON.parse(sharded.stdout).tokenCalls).toBe(3);
    const md = readFileSync(three, 'utf8');
    expect(md).toContain(
      '3 OAuth token requests at the start, one per shard (the plan is sent by 3 processes, run --shard i/3), each renewed when it expires.',
    );
    expect(md).not.toContain('One OAuth token request');

    const one = join(dir, 'one.md');
    const single = await runMain(['notice', file, ...AT, '--out', one, '--json']);
    expect(single.code, single.stderr).toBe(0);
    expect(JSON.parse(single.stdout).tokenCalls).toBe(1);
    expect(readFileSync(one, 'utf8')).toContain('One OAuth token request at the start, renewed when it expires.');
  });

  it.each(['0', '1001', '2.5', 'three'])(
    'refuses --shards %s, naming the flag, the value and what it expects',
    async (value) => {
      const { file, dir } = scenarioWorkspace(UNANNOUNCED);
      const out = join(dir, 'notice.md');
      const refused = await runMain(['notice', file, ...AT, '--shards', value, '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--shards: expected the number of shards the run will be sent in`);
      expect(refused.stderr).toContain(`a whole number from 1 to 1000, got "${value}"`);
    },
  );
});
