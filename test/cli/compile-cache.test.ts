/**
 * bin/loadproof.js asks Node ≥ 22.1 to keep V8's compiled code between runs (module.enableCompileCache). These
 * machines run Node 20, which has no such call: every CLI test shows that path. Here a preload gives Node 20 a
 * stand-in of the call, to see where the cache is asked to live (loadproof's own node_modules/.cache, not a
 * shared temporary folder) and that a cache that fails never fails the command.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';

const CACHE = fileURLToPath(new URL('../../node_modules/.cache/loadproof-compile/', import.meta.url));

/** A preload whose enableCompileCache records its folder, then throws (`fails`) or returns Node's FAILED status. */
function standIn(fails: boolean): { env: Record<string, string>; asked: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-cache-'));
  const record = join(dir, 'asked.txt');
  const preload = join(dir, 'cache.mjs');
  writeFileSync(record, '');
  writeFileSync(
    preload,
    `import module from 'node:module';\nimport { appendFileSync } from 'node:fs';\nmodule.enableCompileCache = (dir) => {\n  appendFileSync(${JSON.stringify(record)}, dir + '\\n');\n  ${fails ? "throw new Error('cache: EACCES');" : "return { status: 0, message: 'cannot write' };"}\n};\n`,
  );
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` },
    asked: () => readFileSync(record, 'utf8'),
  };
}

describe("Node's compile cache", () => {
  it.each([true, false])(
    'asked for in node_modules/.cache; a cache that fails (throws: %s) fails nothing',
    async (fails) => {
      const cache = standIn(fails);
      const { code, stdout, stderr } = await runCli(['--version'], cache.env);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      expect(cache.asked()).toBe(`${CACHE}\n`);
    },
  );

  it('left to Node when NODE_COMPILE_CACHE names a folder of its own', async () => {
    const cache = standIn(false);
    const { code } = await runCli(['--version'], { ...cache.env, NODE_COMPILE_CACHE: join(tmpdir(), 'unused') });
    expect(code).toBe(0);
    expect(cache.asked()).toBe('');
  });
});
