/**
 * The shipped CLI is a bundle (dist/bundle/). It says what the per-file build (dist/cli/bin.js) says, whatever
 * the user's locale (yargs looks for its locale files beside its code). And a stack trace still says where: by
 * default the bundle's chunk, line and column; with LOADPROOF_SOURCE_MAPS=1 the TypeScript source (the bundle's
 * maps chain tsc's). The crash is injected by a preload that makes JSON.parse throw on loadproof's own
 * package.json, which src/core/version.ts reads as the CLI starts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';

const { mock } = serversFor(1);

const PER_FILE = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

function crashOnVersionRead(): Record<string, string> {
  const preload = join(mkdtempSync(join(tmpdir(), 'loadproof-stack-')), 'crash.mjs');
  writeFileSync(
    preload,
    `const parse = JSON.parse;\nJSON.parse = function (text, ...rest) {\n  if (String(text).includes('"name": "loadproof"')) throw new TypeError('injected crash');\n  return parse.call(this, text, ...rest);\n};\n`,
  );
  return { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` };
}

describe("a crash's stack trace from the bundle", () => {
  it('names the chunk, line and column by default', async () => {
    const { code, stderr } = await runCli(['--version'], crashOnVersionRead());
    expect(code).not.toBe(0);
    expect(stderr).toContain('injected crash');
    expect(stderr).toMatch(/\/dist\/bundle\/[\w-]+\.js:\d+:\d+/);
  });

  it('names the TypeScript source with LOADPROOF_SOURCE_MAPS=1', async () => {
    const { code, stderr } = await runCli(['--version'], { ...crashOnVersionRead(), LOADPROOF_SOURCE_MAPS: '1' });
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/\/src\/core\/version\.ts:\d+:\d+/);
  });
});

describe('the bundle and the per-file build', () => {
  it('print the same help under a German locale', async () => {
    const env = { ...process.env, LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' };
    const perFile = spawnSync(process.execPath, [PER_FILE, '--help'], { env, encoding: 'utf8', timeout: 60_000 });
    const bundled = await runCli(['--help'], { LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' });
    expect(bundled.code).toBe(0);
    expect(perFile.status).toBe(0);
    expect(bundled.stdout).toContain('Commands:');
    expect(bundled.stdout).toBe(perFile.stdout);
  });

  it('judge a run folder to the same summary.json, histograms byte for byte', async () => {
    const m = await mock();
    const { file, out } = scenarioWorkspace(
      `name: same\ndescription: same judgement\ntarget: { environment: mock, baseUrl: "${m.url}" }\nphases:\n  - { name: a, duration: 1s, rpm: 600 }\nthresholds: { documentedTargets: false }\n`,
    );
    const ran = await runMain(['run', file, '--out', out, '--no-charts']);
    expect(ran.code).toBe(0);
    const summaryFile = join(out, runFolders(out)[0]!, 'summary.json');
    const summary = (): Record<string, unknown> => {
      const { reportedAt: _, ...rest } = JSON.parse(readFileSync(summaryFile, 'utf8')) as Record<string, unknown>;
      return rest;
    };
    const perFile = summary();
    expect(JSON.stringify(perFile)).toContain('HISTF');
    const { code } = await runCli(['report', join(out, runFolders(out)[0]!), '--no-charts']);
    expect(code).toBe(0);
    expect(summary()).toEqual(perFile);
  });
});
