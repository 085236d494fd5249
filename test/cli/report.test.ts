/**
 * `loadproof report <run-dir>`: a finished run judged again, offline, from its folder
 * gives the same summary.json apart from `reportedAt`; a run that never recorded its end (killed, or
 * stopped by a second Ctrl-C) still gets its summary, marked partial, exit 4; a folder that is not a
 * run, or was changed after it, is refused (exit 2) and nothing is written.
 *
 * Runs a signal must end are child processes; the rest go through the built CLI's main()
 * in-process (runMain), and the first `report` runs as a child process too.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';

const K = 20;
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function mock(options: MockServerOptions = {}): Promise<MockServer> {
  server = await startMockServer({ timeScale: K, ...options });
  return server;
}

const scenarioAt = (url: string, phases: string, extra = ''): string =>
  `name: rejudged\ndescription: a run judged again\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n${phases}${extra}`;

const onlyFolder = (out: string): string => {
  const folders = runFolders(out);
  expect(folders).toHaveLength(1);
  return join(out, folders[0]!);
};

const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const withoutReportedAt = ({ reportedAt: _, ...rest }: Record<string, unknown>): Record<string, unknown> => rest;
const eventLines = (dir: string): string[] =>
  readFileSync(join(dir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean);

async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('loadproof report', () => {
  it('judges a finished run again, with the mock gone, to the same summary.json and exit code', async () => {
    const s = await mock();
    // A failing threshold, so the verdict judged again is not a trivial pass.
    const { file, out } = scenarioWorkspace(
      scenarioAt(
        s.url,
        '  - { name: steady, duration: 30s, rpm: 100, warmup: 5s }\n  - { name: burst, duration: 30s, rpm: 200 }\n',
        'thresholds:\n  all: ["p(50) < 100ms"]\n',
      ),
    );
    const run = await runMain(['run', file, '--time-scale', String(K), '--out', out]);
    // A FAIL; or, when a busy machine made the generator late beyond its budget, inconclusive: either
    // way not a trivial pass, and what is judged again must come out the same.
    expect([1, 5]).toContain(run.code);
    const dir = onlyFolder(out);
    expect(readdirSync(dir).sort()).toEqual([
      'brief.md',
      'charts',
      'events.ndjson',
      'junit.xml',
      'manifest.json',
      'report.html',
      'report.md',
      'run.json',
      'scenario.yaml',
      'summary.json',
    ]);
    expect(readFileSync(join(dir, 'scenario.yaml'), 'utf8')).toBe(readFileSync(file, 'utf8'));
    const first = readJson(join(dir, 'summary.json'));
    await server!.close();
    server = undefined;

    const again = await runCli(['report', dir]);
    expect(again.code).toBe(run.code);
    expect(again.stdout).toContain(run.code === 1 ? 'verdict: FAIL — exit 1' : 'exit 5');
    const second = readJson(join(dir, 'summary.json'));
    expect(second.reportedAt).not.toBe(first.reportedAt);
    expect(withoutReportedAt(second)).toEqual(withoutReportedAt(first));
    expect(first).toMatchObject({
      partial: false,
      loadproofVersion: readJson('package.json').version,
      counts: { planned: 150, unrecorded: 0 },
    });
    expect(first.planIdentity).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first.judgedBy).toBe(first.loadproofVersion);
    expect(readJson(join(dir, 'run.json')).scenarioSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('--no-charts: the run draws no PNG and report.md says how to get them; report draws them later, and report --no-charts removes them', async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 20s, rpm: 60 }\n'));
    const run = await runMain(['run', file, '--no-charts', '--time-scale', String(K), '--out', out]);
    expect([0, 5]).toContain(run.code);
    const dir = onlyFolder(out);
    const pngs = (): string[] => (existsSync(join(dir, 'charts')) ? readdirSync(join(dir, 'charts')).sort() : []);
    const intact = async (): Promise<void> => expect((await runMain(['verify', dir])).code).toBe(0);
    expect(existsSync(join(dir, 'charts'))).toBe(false);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      'Not drawn as PNG files for this run (`--no-charts`)',
    );
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).not.toContain('](charts/');
    // report.html draws its own charts from the data it carries, --no-charts or not.
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('id="chart-latency-over-time"');
    await intact();

    expect((await runMain(['report', dir])).code).toBe(run.code);
    expect(pngs()).toEqual([
      'in-flight.png',
      'latency-distribution.png',
      'latency-over-time.png',
      'rate-and-refusals.png',
      'send-lag.png',
    ]);
    expect(
      readFileSync(join(dir, 'charts', 'send-lag.png'))
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('](charts/send-lag.png)');
    await intact();

    // Any PNG left in charts/ goes too (a chart of another version, put there by hand): none undrawn stays.
    writeFileSync(join(dir, 'charts', 'old-chart.png'), 'not ours');
    expect((await runMain(['report', dir, '--no-charts'])).code).toBe(run.code);
    expect(existsSync(join(dir, 'charts'))).toBe(false);
    // The files match the new manifest, but its history says the folder was changed after its run, so it is not the
    // evidence it claims to be.
    const verified = await runMain(['verify', dir]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain('not in it: charts/old-chart.png');
  });
  it('gives a run killed mid-way a partial summary from the events it wrote (exit 4)', async () => {
    const s = await mock();
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: long, duration: 10m, rpm: 100 }\n'));
    const cli = startCli(['run', file, '--time-scale', String(K), '--out', out], {}, 60_000);
    await until(
      () =>
        existsSync(out) &&
        runFolders(out).length === 1 &&
        existsSync(join(out, runFolders(out)[0]!, 'events.ndjson')) &&
        eventLines(join(out, runFolders(out)[0]!)).length >= 20,
      '20 event lines',
    );
    cli.child.kill('SIGKILL');
    await cli.exited;
    const dir = onlyFolder(out);
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    expect(readJson(join(dir, 'run.json')).end).toBeNull();

    const { code, stdout, stderr } = await runMain(['report', dir]);
    expect(code, stderr).toBe(4);
    expect(stdout).toContain('STOPPED (PARTIAL)');
    const summary = readJson(join(dir, 'summary.json'));
    const lines = eventLines(dir).length;
    expect(summary).toMatchObject({
      partial: true,
      exitCode: 4,
      interrupted: true,
      stopped: { by: 'unknown', code: 'PARTIAL' },
    });
    expect(summary.counts.planned).toBe(1000);
    expect(summary.counts.sent + summary.counts.dropped + summary.counts.unsent).toBe(lines);
    expect(summary.counts.unrecorded).toBe(1000 - lines);
  });

  it('gives a run stopped by a second Ctrl-C during the drain a partial summary', async () => {
    // Every answer is held 60 s (model), so the first Ctrl-C leaves a long drain for the second to cut.
    const s = await mock({ profile: 'zero', faults: { slowRate: 1, slowExtraMs: 60_000 } });
    const { file, out } = scenarioWorkspace(
      scenarioAt(
        s.url,
        '  - { name: short, duration: 1m, rpm: 60 }\n',
        'timeout: 2m\nthresholds: { documentedTargets: false }\n',
      ),
    );
    const cli = startCli(['run', file, '--time-scale', String(K), '--out', out], {}, 60_000);
    await until(() => s.stats().requests.identification.received >= 3, '3 requests');
    let stderr = '';
    cli.child.stderr.on('data', (chunk: string) => (stderr += chunk));
    cli.child.kill('SIGINT');
    await until(() => stderr.includes('SIGINT: no new requests'), 'the first Ctrl-C to be taken');
    cli.child.kill('SIGINT');
    await cli.exited;
    // "Ctrl-C again to quit at once": the second one ends the process there and then.
    expect(cli.child.signalCode).toBe('SIGINT');
    const dir = onlyFolder(out);
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);

    const report = await runMain(['report', dir]);
    expect(report.code).toBe(4);
    expect(readJson(join(dir, 'summary.json'))).toMatchObject({ partial: true, counts: { planned: 60 } });
  });

  describe('refuses what it cannot judge (exit 2), writing nothing', () => {
    // One finished run, made once; each test changes its own copy of the folder.
    let made: Promise<string> | undefined;
    const makeRun = async (): Promise<string> => {
      const s = await startMockServer({ timeScale: K });
      try {
        const { file, out } = scenarioWorkspace(
          scenarioAt(
            s.url,
            '  - { name: steady, duration: 30s, rpm: 60 }\n',
            'thresholds: { documentedTargets: false }\n',
          ),
        );
        expect((await runMain(['run', file, '--time-scale', String(K), '--out', out])).code).toBe(0);
        return onlyFolder(out);
      } finally {
        await s.close();
      }
    };
    async function finishedRun(): Promise<string> {
      const original = await (made ??= makeRun());
      const copy = join(mkdtempSync(join(tmpdir(), 'loadproof-report-')), 'run');
      cpSync(original, copy, { recursive: true });
      return copy;
    }

    it('a folder that is not a run', async () => {
      const { dir } = scenarioWorkspace('');
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(2);
      expect(stderr).toContain('not a run folder (cannot read run.json: ENOENT)');
      expect(existsSync(join(dir, 'summary.json'))).toBe(false);
    });

    it('an event line changed after the run, named by its line number', async () => {
      const dir = await finishedRun();
      const lines = eventLines(dir);
      lines[3] = lines[3]!.replace(/"outcome":"[a-z_0-9]+"/, '"outcome":"great"');
      writeFileSync(join(dir, 'events.ndjson'), `${lines.join('\n')}\n`);
      const before = statSync(join(dir, 'summary.json')).mtimeMs;
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/events\.ndjson line 4: outcome: expected one of ok, /);
      expect(statSync(join(dir, 'summary.json')).mtimeMs).toBe(before);
    });

    it('an event that appears twice', async () => {
      const dir = await finishedRun();
      const lines = eventLines(dir);
      writeFileSync(join(dir, 'events.ndjson'), `${[...lines, lines[0]].join('\n')}\n`);
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`line ${lines.length + 1}: seq 0 appears twice`);
    });

    it('a finished run with lines missing', async () => {
      const dir = await finishedRun();
      const lines = eventLines(dir);
      writeFileSync(join(dir, 'events.ndjson'), `${lines.slice(0, 10).join('\n')}\n`);
      const before = readFileSync(join(dir, 'summary.json'), 'utf8');
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(2);
      expect(stderr).toContain(`10 lines for the ${lines.length} planned requests of a finished run`);
      expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(before);
    });

    it('a run whose events.ndjson could not be written whole: its own summary stands (exit 4), nothing is replaced', async () => {
      // What a full disk leaves (review): the live summary judged from memory, events cut short, the failure in
      // run.json.
      const dir = await finishedRun();
      const lines = eventLines(dir);
      writeFileSync(join(dir, 'events.ndjson'), `${lines.slice(0, 10).join('\n')}\n${lines[10]!.slice(0, 20)}`);
      const run = readJson(join(dir, 'run.json'));
      run.end.files = run.end.files.map((f: any) =>
        f.file === 'events.ndjson'
          ? { ...f, error: 'ENOSPC: no space left on the device; at least 20 later lines not written' }
          : f,
      );
      writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
      const before = readFileSync(join(dir, 'summary.json'), 'utf8');
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(4);
      expect(stderr).toContain('was not written whole during the run (ENOSPC');
      expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(before);
    });

    it('a summary.json that cannot be rewritten (a folder in the way of its temporary file): the one there stays whole, exit 4', async () => {
      const dir = await finishedRun();
      const before = readFileSync(join(dir, 'summary.json'), 'utf8');
      // A link there (to /dev/full) would make the folder refused as a whole (a link could send its writes out of the
      // folder): a folder in the way fails the write alike.
      mkdirSync(join(dir, 'summary.json.partial'));
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(4);
      expect(stderr).toContain(`could not write ${join(dir, 'summary.json')} (`);
      expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(before);
    });

    it('a scenario copy changed since the run', async () => {
      const dir = await finishedRun();
      writeFileSync(
        join(dir, 'scenario.yaml'),
        readFileSync(join(dir, 'scenario.yaml'), 'utf8').replace('rpm: 60', 'rpm: 61'),
      );
      const { code, stderr } = await runMain(['report', dir]);
      expect(code).toBe(2);
      expect(stderr).toContain('changed since the run (run.json has sha256:');
    });
  });
});
