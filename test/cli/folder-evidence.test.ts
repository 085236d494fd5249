/**
 * A run folder is evidence, whoever held it since its run: report, verify, compare and merge never
 * follow a link out of a folder, read only regular files within bounds and validate every field (exit 2
 * naming the file, and the line or field); run and merge write only into a folder they made or an empty
 * one; merge refuses a shard whose manifest history says it changed after its run; and report and merge
 * stopped by SIGINT/SIGTERM exit 130 leaving a complete folder or none.
 *
 * One finished run and one set of shards are made once, against one mock, and copied for each case.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CLAIM_MARKER } from '../../src/core/claim-folder.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { claimRunFolder, releaseRunFolder } from '../../src/run-folder/write.js';
import { type CliProcess, runCli, runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';

const K = 20;
let server: MockServer;
/** A finished run's folder (never changed: each case works on a copy). */
let RUN: string;
/** The two shards of one plan, finished (never changed either). */
let SHARDS: string[];

const scenarioAt = (url: string, name: string): string =>
  `name: ${name}\ndescription: evidence\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n  - { name: steady, duration: 10s, rpm: 120 }\n`;
const fresh = (): string => mkdtempSync(join(tmpdir(), 'loadproof-folder-'));
const copy = (dir: string): string => {
  const to = join(fresh(), 'run');
  cpSync(dir, to, { recursive: true });
  return to;
};
/** Every file of a folder and its bytes, to show that nothing in it changed. */
const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [join(e.parentPath, e.name).slice(dir.length), readFileSync(join(e.parentPath, e.name), 'base64')]),
  );
/**
 * The child's stderr once it holds `text`; rejected if the child exits first (no fixed bound: the child's own limit
 * ends it).
 */
const holdReached = (cli: CliProcess, text: string): Promise<string> =>
  new Promise((resolve, reject) => {
    let seen = '';
    cli.child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes(text)) resolve(seen);
    });
    cli.child.on('exit', (code, signal) =>
      reject(new Error(`exited (${code ?? signal}) before "${text}" on stderr: ${seen}`)),
    );
  });
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const sent = (): number => server.stats().requests.token.received + server.stats().requests.identification.received;

beforeAll(async () => {
  server = await startMockServer({ timeScale: K, profile: 'zero' });
  const { file, out } = scenarioWorkspace(scenarioAt(server.url, 'evidence'));
  const run = await runMain(['run', file, '--time-scale', String(K), '--out', out]);
  expect([0, 5], run.stderr).toContain(run.code);
  RUN = join(out, runFolders(out)[0]!);
  const shards = scenarioWorkspace(scenarioAt(server.url, 'sharded'));
  const startAt = new Date(Date.now() + 6000).toISOString();
  const codes = await Promise.all(
    [0, 1].map(
      async (i) =>
        (
          await runMain([
            'run',
            '--no-charts',
            shards.file,
            '--shard',
            `${i}/2`,
            '--start-at',
            startAt,
            '--time-scale',
            String(K),
            '--out',
            shards.out,
          ])
        ).code,
    ),
  );
  // 4 when a busy machine made a shard late for its start (its requests unsent): finished shards all the same, which is
  // what these cases need.
  for (const code of codes) expect([0, 4]).toContain(code);
  SHARDS = runFolders(shards.out)
    .map((f) => join(shards.out, f))
    .sort((a, b) => readJson(join(a, 'run.json')).shard.index - readJson(join(b, 'run.json')).shard.index);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('a link in a run folder is never followed out of it', () => {
  it('report --no-charts over charts/ linked to another folder: exit 2 naming it, no PNG of that folder deleted, nothing written', async () => {
    const dir = copy(RUN);
    const elsewhere = fresh();
    writeFileSync(join(elsewhere, 'holiday.png'), 'not ours');
    rmSync(join(dir, 'charts'), { recursive: true });
    symlinkSync(elsewhere, join(dir, 'charts'));
    const before = snapshot(dir);
    for (const args of [
      ['report', '--no-charts', dir],
      ['report', dir],
    ]) {
      const { code, stderr } = await runMain(args);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`${join(dir, 'charts')}: a symbolic link`);
      expect(readdirSync(elsewhere)).toEqual(['holiday.png']);
      expect(readFileSync(join(elsewhere, 'holiday.png'), 'utf8')).toBe('not ours');
      expect(snapshot(dir)).toEqual(before);
    }
  });

  it.each([
    'events.ndjson',
    'summary.json',
    'run.json',
    'manifest.json',
    'scenario.yaml',
    'report.md',
    'report.html',
    'junit.xml',
    'charts/send-lag.png',
  ])(
    '%s linked to a copy of itself outside the folder: report, verify, compare and merge refuse it (exit 2, naming it)',
    async (file) => {
      const dir = copy(RUN);
      const path = join(dir, file);
      expect(existsSync(path)).toBe(true);
      const outside = join(fresh(), 'outside');
      cpSync(path, outside);
      rmSync(path);
      symlinkSync(outside, path);
      for (const args of [
        ['report', dir],
        ['verify', dir],
        ['compare', RUN, dir],
      ]) {
        const { code, stderr } = await runMain(args);
        expect(code, `${args[0]}: ${stderr}`).toBe(2);
        expect(stderr).toContain(path);
        expect(stderr).not.toContain('internal error');
      }
      expect(readFileSync(outside)).toEqual(readFileSync(join(RUN, file)));
      // A shard with the same link.
      const shard = copy(SHARDS[1]!);
      const shardPath = join(shard, file);
      if (existsSync(shardPath)) {
        const shardOutside = join(fresh(), 'outside');
        cpSync(shardPath, shardOutside);
        rmSync(shardPath);
        symlinkSync(shardOutside, shardPath);
        const out = fresh();
        const { code, stderr } = await runMain(['merge', SHARDS[0]!, shard, '--out', out]);
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(shardPath);
        expect(readdirSync(out)).toEqual([]);
      }
    },
  );
});

describe('--run-dir writes only into a folder made for it or empty', () => {
  it.each([
    'scenario.yaml',
    'report.md',
    'report.html',
    'junit.xml',
    'run.json',
    'manifest.json',
    'notes.txt',
    'charts/mine.png',
  ])('run --run-dir into a folder holding %s: exit 2 before any traffic, the folder untouched', async (file) => {
    const dir = fresh();
    mkdirSync(join(dir, 'charts'));
    writeFileSync(join(dir, file), 'mine');
    const before = snapshot(dir);
    const { file: scenario } = scenarioWorkspace(scenarioAt(server.url, 'into'));
    const sentBefore = sent();
    for (const charts of [[], ['--no-charts']]) {
      const { code, stderr } = await runMain(['run', scenario, ...charts, '--time-scale', String(K), '--run-dir', dir]);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(`--run-dir ${dir}: the folder is not empty`);
    }
    expect(sent()).toBe(sentBefore);
    expect(snapshot(dir)).toEqual(before);
  });

  it('run --run-dir into an empty folder the user made: the run goes there', async () => {
    const dir = fresh();
    const { file } = scenarioWorkspace(scenarioAt(server.url, 'into'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--run-dir', dir]);
    expect([0, 5], stderr).toContain(code);
    expect(readdirSync(dir)).toContain('manifest.json');
  });

  it('merge --run-dir into a folder holding files of the user: exit 2, the folder and the shards untouched', async () => {
    const dir = fresh();
    for (const file of ['scenario.yaml', 'scenario.json', 'run.json', 'report.md'])
      writeFileSync(join(dir, file), 'mine');
    const before = snapshot(dir);
    const shards = SHARDS.map(snapshot);
    const { code, stderr } = await runMain(['merge', ...SHARDS, '--no-charts', '--run-dir', dir]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`--run-dir ${dir}: the folder is not empty`);
    expect(snapshot(dir)).toEqual(before);
    expect(SHARDS.map(snapshot)).toEqual(shards);
  });

  it('merge --run-dir into an empty folder: the merged run goes there', async () => {
    const dir = fresh();
    const { code, stderr } = await runMain(['merge', ...SHARDS, '--no-charts', '--run-dir', dir]);
    // The verdict is not the point (4 when a busy machine made a shard late): the folder is.
    expect([0, 1, 4, 5], stderr).toContain(code);
    expect(readdirSync(dir)).toContain('manifest.json');
    expect((await runMain(['verify', dir])).code).toBe(0);
  });
});

// Two commands claiming one --run-dir: the loser must not empty the winner's folder.
describe('a --run-dir claimed by another command', () => {
  it('run --run-dir into a folder another command holds: exit 2 "in use", nothing sent, its files untouched', async () => {
    const dir = fresh();
    const holder = await claimRunFolder(dir);
    writeFileSync(join(dir, 'events.ndjson'), '{"live":1}\n');
    const before = snapshot(dir);
    const { file } = scenarioWorkspace(scenarioAt(server.url, 'into'));
    const sentBefore = sent();
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--run-dir', dir]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`--run-dir ${dir}: in use by another command`);
    expect(sent()).toBe(sentBefore);
    expect(snapshot(dir)).toEqual(before);
    await releaseRunFolder(holder, ['events.ndjson']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('merge --run-dir into a folder another command holds: exit 2 "in use", its files untouched', async () => {
    const dir = fresh();
    const holder = await claimRunFolder(dir);
    const before = snapshot(dir);
    const { code, stderr } = await runMain(['merge', ...SHARDS, '--no-charts', '--run-dir', dir]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`--run-dir ${dir}: in use by another command`);
    expect(snapshot(dir)).toEqual(before);
    expect(readdirSync(join(dir, '..')).filter((f) => f.includes('.merging-'))).toEqual([]);
    await releaseRunFolder(holder, []);
  });

  it('a claim left by a killed command is explained: the marker is named, and what to do', async () => {
    const dir = fresh();
    await claimRunFolder(dir);
    const { file } = scenarioWorkspace(scenarioAt(server.url, 'into'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--run-dir', dir]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(join(dir, CLAIM_MARKER));
    expect(stderr).toContain('killed');
  });

  it('a run and a merge that finish in a --run-dir leave no claim marker: verify says intact', async () => {
    const ran = fresh();
    const { file } = scenarioWorkspace(scenarioAt(server.url, 'into'));
    const run = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--run-dir', ran]);
    expect([0, 5], run.stderr).toContain(run.code);
    const merged = fresh();
    const merge = await runMain(['merge', ...SHARDS, '--no-charts', '--run-dir', merged]);
    expect([0, 1, 4, 5], merge.stderr).toContain(merge.code);
    for (const dir of [ran, merged]) {
      expect(readdirSync(dir)).not.toContain(CLAIM_MARKER);
      expect(readJson(join(dir, 'manifest.json')).files.map((f: { file: string }) => f.file)).not.toContain(
        CLAIM_MARKER,
      );
      expect((await runMain(['verify', dir])).code).toBe(0);
    }
  });
});

describe('a shard whose history says it changed after its run is refused', () => {
  it('events edited, then `report` run on the shard (its new manifest intact): verify says the history is not, and merge refuses it', async () => {
    const shard = copy(SHARDS[1]!);
    const events = readFileSync(join(shard, 'events.ndjson'), 'utf8');
    writeFileSync(join(shard, 'events.ndjson'), events.replace(/"latencyMs":[0-9.]+/, '"latencyMs":9000'));
    const reported = await runMain(['report', '--no-charts', shard]);
    expect(reported.stderr).toContain('did not match its manifest.json');
    // Judged again twice: the history is carried, not laundered.
    await runMain(['report', '--no-charts', shard]);
    const verified = await runMain(['verify', shard]);
    expect(verified.code, verified.stdout).toBe(1);
    expect(verified.stdout).toContain('its history says the folder was changed after its run');
    expect(verified.stdout).toContain('changed: events.ndjson');
    const out = fresh();
    const merged = await runMain(['merge', SHARDS[0]!, shard, '--no-charts', '--out', out]);
    expect(merged.code, merged.stderr).toBe(2);
    expect(merged.stderr).toContain('shard 1/2 is not as its run left it');
    expect(readdirSync(out)).toEqual([]);
  });

  it.each([
    { what: 'its manifest deleted', change: (dir: string) => rmSync(join(dir, 'manifest.json')) },
    {
      what: 'its manifest replaced by garbage',
      change: (dir: string) => writeFileSync(join(dir, 'manifest.json'), '{"schemaVersion":1,"files":[null]}'),
    },
  ])('events edited, $what, then `report`: merge refuses it', async ({ change }) => {
    const shard = copy(SHARDS[1]!);
    writeFileSync(
      join(shard, 'events.ndjson'),
      readFileSync(join(shard, 'events.ndjson'), 'utf8').replace(/"latencyMs":[0-9.]+/, '"latencyMs":9000'),
    );
    change(shard);
    const reported = await runMain(['report', '--no-charts', shard]);
    expect(reported.stderr).not.toContain('internal error');
    expect((await runMain(['verify', shard])).code).toBe(1);
    const merged = await runMain(['merge', SHARDS[0]!, shard, '--no-charts', '--out', fresh()]);
    expect(merged.code, merged.stderr).toBe(2);
    expect(merged.stderr).toContain('shard 1/2 is not as its run left it');
  });

  it('a shard judged again unchanged is still as its run left it: merge takes it', async () => {
    const shard = copy(SHARDS[1]!);
    await runMain(['report', '--no-charts', shard]);
    expect((await runMain(['verify', shard])).code).toBe(0);
    const merged = await runMain(['merge', SHARDS[0]!, shard, '--no-charts', '--out', fresh()]);
    expect([0, 1, 4, 5], merged.stderr).toContain(merged.code);
  });
});

describe('hostile files inside a folder', () => {
  it('events.ndjson a FIFO: report, compare and merge refuse it at once (exit 2), no hang', async () => {
    const dir = copy(RUN);
    rmSync(join(dir, 'events.ndjson'));
    execFileSync('mkfifo', [join(dir, 'events.ndjson')]);
    // A child process, bounded: a hang would be killed and fail here.
    const { code, stderr } = await runCli(['report', dir], {}, 10_000);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`${join(dir, 'events.ndjson')}: a FIFO`);
    const shard = copy(SHARDS[1]!);
    rmSync(join(shard, 'events.ndjson'));
    execFileSync('mkfifo', [join(shard, 'events.ndjson')]);
    const merged = await runCli(['merge', SHARDS[0]!, shard, '--out', fresh()], {}, 10_000);
    expect(merged.code, merged.stderr).toBe(2);
  });

  it.each([
    {
      what: 'one line past the line bound (no newline)',
      text: () => 'x'.repeat(64 * 1024 + 1),
      message: 'events.ndjson line 1: longer than 65536 bytes',
    },
    {
      what: 'a good line, then one past the bound',
      text: (lines: string[]) => `${lines[0]}\n${'{'.repeat(64 * 1024 + 1)}\n`,
      message: 'events.ndjson line 2: longer than 65536 bytes',
    },
    {
      what: 'more bytes than the plan can have',
      text: (lines: string[]) => '\n'.repeat((lines.length + 1) * (64 * 1024 + 1) + 1),
      message: 'expected at most',
    },
  ])('events.ndjson with $what: exit 2 naming the file and line, no stack', async ({ text, message }) => {
    const dir = copy(RUN);
    const lines = readFileSync(join(dir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(join(dir, 'events.ndjson'), text(lines));
    for (const args of [
      ['report', dir],
      ['compare', RUN, dir],
    ]) {
      const { code, stderr } = await runMain(args);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain(message);
      expect(stderr).not.toContain('internal error');
    }
  });

  it.each([
    {
      what: 'a negative latency',
      edit: (e: any) => (e.latencyMs = -5),
      message: 'latencyMs: -5, expected a number ≥ 0',
    },
    {
      what: 'an end before its request was due',
      edit: (e: any) => (e.endAtMs = e.intendedAtMs - 1),
      message: 'endAtMs:',
    },
    {
      what: 'a try that ends before it is sent',
      edit: (e: any) => (e.tries[0].endAtMs = e.tries[0].sentAtMs - 1),
      message: 'tries:',
    },
  ])('an event with $what: exit 2 naming the line', async ({ edit, message }) => {
    const dir = copy(RUN);
    const lines = readFileSync(join(dir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean);
    const index = lines.findIndex((l) => JSON.parse(l).tries.length > 0);
    const event = JSON.parse(lines[index]!);
    edit(event);
    lines[index] = JSON.stringify(event);
    writeFileSync(join(dir, 'events.ndjson'), `${lines.join('\n')}\n`);
    const { code, stderr } = await runMain(['report', dir]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`events.ndjson line ${index + 1}: ${message}`);
  });

  it.each([
    { field: 'end.engine', edit: (r: any) => (r.end.engine = null) },
    { field: 'end.files', edit: (r: any) => (r.end.files = [null]) },
    { field: 'end.stop', edit: (r: any) => (r.end.stop = 'x') },
    { field: 'guard.checks', edit: (r: any) => (r.guard.checks = null) },
    { field: 'target', edit: (r: any) => (r.target = null) },
    { field: 'timeScale', edit: (r: any) => (r.timeScale = -1) },
    // An encoded field is decoded when checked, not later in the judge, so a bad one is refused naming its field.
    { field: 'end.tokenLatency', edit: (r: any) => (r.end.tokenLatency = 'garbage!!') },
    { field: 'end.tokenLatency', edit: (r: any) => (r.end.tokenLatency = 'AAAA') },
    { field: 'end.tokenLatency', edit: (r: any) => (r.end.tokenLatency = '') },
  ])(
    'run.json with a bad $field: report, compare and merge refuse it naming the field (exit 2), no TypeError',
    async ({ field, edit }) => {
      const dir = copy(RUN);
      const run = readJson(join(dir, 'run.json'));
      edit(run);
      writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
      for (const args of [
        ['report', dir],
        ['compare', RUN, dir],
      ]) {
        const { code, stderr } = await runMain(args);
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(`${join(dir, 'run.json')}: ${field}`);
      }
      const shard = copy(SHARDS[1]!);
      const shardRun = readJson(join(shard, 'run.json'));
      edit(shardRun);
      writeFileSync(join(shard, 'run.json'), JSON.stringify(shardRun));
      const merged = await runMain(['merge', SHARDS[0]!, shard, '--out', fresh()]);
      expect(merged.code, merged.stderr).toBe(2);
      expect(merged.stderr).toContain(field);
    },
  );

  it('manifest.json whose files[] holds null: verify says it is not a manifest (exit 2), report judges the folder and records it', async () => {
    const dir = copy(RUN);
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ ...readJson(join(dir, 'manifest.json')), files: [null] }),
    );
    const verified = await runMain(['verify', dir]);
    expect(verified.code, verified.stderr).toBe(2);
    expect(verified.stderr).toContain('files.0');
    const reported = await runMain(['report', dir]);
    expect(reported.stderr).not.toContain('internal error');
    expect(readJson(join(dir, 'manifest.json')).previous).toMatchObject({ intact: false });
  });
});

describe('a signal during merge or report leaves a complete folder or none', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s during merge, before the merged folder is whole: exit 130 and no merged folder',
    async (signal) => {
      const out = fresh();
      const cli = startCli(['merge', ...SHARDS, '--no-charts', '--out', out], {
        LOADPROOF_TEST_HOLD: 'merge:before-commit',
      });
      let stderr = '';
      cli.child.stderr.on('data', (chunk: string) => (stderr += chunk));
      // Waited for on the line itself (bounded by the child's own limit), and asserted: a signal sent before the
      // handlers are installed would end the child with no exit code at all.
      expect(await holdReached(cli, 'test hold: merge:before-commit')).toContain('test hold: merge:before-commit');
      // Whole by now, but not yet in place.
      expect(readdirSync(out).filter((f) => !f.startsWith('.'))).toEqual([expect.stringMatching(/sharded-merged$/)]);
      cli.child.kill(signal);
      const { code } = await cli.exited;
      expect(code, stderr).toBe(130);
      expect(readdirSync(out)).toEqual([]);
    },
  );

  it('SIGTERM during merge --run-dir into an empty folder: exit 130, and the folder as empty as it was', async () => {
    const dir = fresh();
    const cli = startCli(['merge', ...SHARDS, '--no-charts', '--run-dir', dir], {
      LOADPROOF_TEST_HOLD: 'merge:before-commit',
    });
    let stderr = '';
    cli.child.stderr.on('data', (chunk: string) => (stderr += chunk));
    // Waited for on the line itself (bounded by the child's own limit), and asserted: a signal sent before the
    // handlers are installed would end the child with no exit code at all.
    expect(await holdReached(cli, 'test hold: merge:before-commit')).toContain('test hold: merge:before-commit');
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code, stderr).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
    expect(readdirSync(join(dir, '..')).filter((f) => f.startsWith(`.${basename(dir)}.merging-`))).toEqual([]);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s during report, before it writes: exit 130 and the folder byte for byte as it was',
    async (signal) => {
      const dir = copy(RUN);
      const before = snapshot(dir);
      const cli = startCli(['report', dir], { LOADPROOF_TEST_HOLD: 'report:before-writing' });
      let stderr = '';
      cli.child.stderr.on('data', (chunk: string) => (stderr += chunk));
      // Waited for on the line itself (bounded by the child's own limit), and asserted: a signal sent before the
      // handlers are installed would end the child with no exit code at all.
      expect(await holdReached(cli, 'test hold: report:before-writing')).toContain('test hold: report:before-writing');
      cli.child.kill(signal);
      expect((await cli.exited).code, stderr).toBe(130);
      expect(snapshot(dir)).toEqual(before);
      expect((await runMain(['verify', dir])).code).toBe(0);
    },
  );
});
