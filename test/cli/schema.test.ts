/** `loadproof schema` as a child process. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';

describe('loadproof schema', () => {
  it('prints the committed scenario JSON Schema and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['schema']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(
      readFileSync(fileURLToPath(new URL('../../scenarios/scenario.schema.json', import.meta.url)), 'utf8'),
    );
  });
});
