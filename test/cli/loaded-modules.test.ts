/**
 * The process holds under 100 MiB before its first request, and a run's fixed CPU is mostly loading code
 * (bench/fixed-cost.js). What a run does not use is not loaded: a run against a server of its own
 * (loadproof's mock at a baseUrl) loads neither the mock's server code (the embedded mock runs in its own
 * thread, which loads it there), nor undici (its WebAssembly HTTP parser alone is megabytes: the token call
 * goes through node:http), nor hdr-histogram-js's WebAssembly build (the recorder imports its pure-JS parts),
 * nor the other commands' modules, nor what only mode deid or --metrics-port use; with --no-charts, neither
 * chart.js nor the canvas. Checked on the real CLI as a child process, the bundle a user runs (dist/bundle/): a
 * module-loading hook lists every file it loaded (ES modules through the resolve hook, CommonJS ones through
 * require.cache at exit), and each chunk of the bundle stands for the modules it holds (dist/bundle/modules.json,
 * written by the build): a lazy part made eager is a chunk loaded, and so its modules. And no command renders its
 * help text unless asked (yargs did, on every start).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { describe, expect, it } from 'vitest';

import { cliParser } from '../../src/cli/main.js';
import { runCli, scenarioWorkspace } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';

const { mock } = serversFor(1);

const ROOT = new URL('../../', import.meta.url);
const BUNDLE = new URL('dist/bundle/', ROOT).href;

/** The modules each loaded chunk of the bundle holds, as file URLs, after the chunk itself. */
function withChunkModules(loaded: string[]): string[] {
  const chunks = JSON.parse(readFileSync(fileURLToPath(new URL('modules.json', BUNDLE)), 'utf8')) as Record<
    string,
    string[]
  >;
  return loaded.flatMap((url) => {
    const modules = url.startsWith(BUNDLE) ? chunks[url.slice(BUNDLE.length)] : undefined;
    return [url, ...(modules ?? []).map((id) => new URL(id, ROOT).href)];
  });
}

/** Writes the hook files into `dir`; returns the NODE_OPTIONS that load them and the file listing what was loaded. */
function moduleTrace(dir: string): { env: Record<string, string>; loaded: () => string[] } {
  const list = join(dir, 'loaded.txt');
  const hooks = join(dir, 'hooks.mjs');
  const preload = join(dir, 'preload.mjs');
  writeFileSync(list, '');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(${JSON.stringify(list)}, r.url + '\\n');\n  return r;\n}\n`,
  );
  writeFileSync(
    preload,
    `import { register, createRequire } from 'node:module';\nimport { appendFileSync } from 'node:fs';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\nconst require = createRequire(import.meta.url);\nprocess.on('exit', () => appendFileSync(${JSON.stringify(list)}, Object.keys(require.cache).map((f) => 'file://' + f + '\\n').join('')));\n`,
  );
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` },
    loaded: () =>
      readFileSync(list, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
  };
}

/** A run of 10 requests against loadproof's mock at a baseUrl, with `flags`: the files it loaded. */
async function leanRun(flags: string[]): Promise<string[]> {
  const m = await mock();
  const { dir, file, out } = scenarioWorkspace(
    `name: lean\ndescription: lean start\ntarget: { environment: mock, baseUrl: "${m.url}" }\nphases:\n  - { name: a, duration: 1s, rpm: 600 }\nthresholds: { documentedTargets: false }\n`,
  );
  const trace = moduleTrace(dir);
  const { code, stderr } = await runCli(['run', file, '--out', out, ...flags], trace.env, 30_000);
  expect(stderr).not.toMatch(/internal error/);
  expect(code).toBe(0);
  expect(m.stats().requests.identification.received).toBe(10);
  const loaded = trace.loaded();
  // It ran the bundle, not dist/'s files one by one.
  expect(loaded.some((u) => u === `${BUNDLE}bin.js`)).toBe(true);
  expect(loaded.filter((u) => u.startsWith(new URL('dist/', ROOT).href) && !u.startsWith(BUNDLE))).toEqual([]);
  return withChunkModules(loaded);
}

/** The run's command module and the two it shares with others; no other command's. */
const OWN_COMMAND_FILES = ['judgement-output.js', 'run.js', 'target-options.js'];
const commandFiles = (loaded: string[]): string[] =>
  [...new Set(loaded.flatMap((u) => /\/dist\/cli\/commands\/([^/]+)$/.exec(u)?.[1] ?? []))].sort();
const CHART_CODE = /\/node_modules\/(chart\.js|chartjs-node-canvas|canvas|@napi-rs)\//;

describe('what a run loads', () => {
  it('against a mock at a baseUrl: neither the mock server, nor undici, nor the WebAssembly histogram', async () => {
    const loaded = await leanRun([]);
    // The trace works: it saw the run's own code and a CommonJS dependency.
    expect(loaded.some((u) => u.endsWith('/dist/run/measure-and-judge.js'))).toBe(true);
    expect(loaded.some((u) => u.includes('/node_modules/hdr-histogram-js/'))).toBe(true);
    expect(loaded.filter((u) => u.includes('/node_modules/undici/'))).toEqual([]);
    expect(loaded.filter((u) => /\/dist\/mock\/(server|gateway|fleet|routes\/)/.test(u))).toEqual([]);
    expect(loaded.filter((u) => /\/node_modules\/(hdr-histogram-js\/dist\/wasm\/|@assemblyscript\/)/.test(u))).toEqual(
      [],
    );
    // Only its own command, no deid chain, no metrics server; the charts drawn.
    expect(commandFiles(loaded)).toEqual(OWN_COMMAND_FILES);
    expect(loaded.filter((u) => /\/dist\/(deid\/|run\/deid-chain|run\/metrics\/server)/.test(u))).toEqual([]);
    expect(loaded.some((u) => CHART_CODE.test(u))).toBe(true);
  });

  it('with --no-charts: no chart.js, no canvas', async () => {
    const loaded = await leanRun(['--no-charts']);
    expect(loaded.some((u) => u.endsWith('/dist/report/write-reports.js'))).toBe(true);
    expect(loaded.filter((u) => CHART_CODE.test(u) || u.endsWith('/dist/report/png.js'))).toEqual([]);
  });
});

describe('what a command builds before it runs', () => {
  it("no help text: yargs' copy for a later failure is never made", async () => {
    let ran = false;
    const parser = await cliParser(['schema'], () => {
      ran = true;
    });
    await parser.parseAsync();
    expect(ran).toBe(true);
    const usage = (
      parser as unknown as { getInternalMethods(): { getUsageInstance(): { hasCachedHelpMessage(): boolean } } }
    )
      .getInternalMethods()
      .getUsageInstance();
    expect(usage.hasCachedHelpMessage()).toBe(false);
  });
});
