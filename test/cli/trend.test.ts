/**
 * `loadproof trend` over ten real runs of one tiny scenario against the embedded mock: five against the nominal
 * profile, then five against the degraded one. The table shows the change, the first degraded run is flagged as
 * compare would flag it (and no nominal run is), the PNG and the HTML are written; with a baseline and
 * --fail-on-flag, a degraded latest run fails CI (exit 1). No usable run is bad input (exit 2).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

// One phase, 150 requests; at k = 20 about 3 s of wall time a run. The degraded fleet's p95 is several times the
// nominal one's at this rate.
const SCENARIO =
  'name: trended\ndescription: a run among many\nphases:\n  - { name: steady, duration: 1m, rpm: 150, warmup: 10s }\n';

let reports: string;
let folders: string[];

/** One run against the mock of `profile`, in a process of its own, into the shared reports folder. */
async function runAgainst(file: string, profile: string): Promise<void> {
  const run = await runCli(
    ['run', '--no-charts', '--quiet', file, '--time-scale', '20', '--mock-profile', profile, '--out', reports],
    {},
    // A bound on a hung child only: on a busy machine a run took many times as long as alone.
    120_000,
  );
  expect([0, 1, 5], run.stderr).toContain(run.code);
}

/** `count` runs, `parallel` at a time. */
async function runBatch(file: string, profile: string, count: number, parallel: number): Promise<void> {
  for (let i = 0; i < count; i += parallel)
    await Promise.all(Array.from({ length: Math.min(parallel, count - i) }, () => runAgainst(file, profile)));
}

/** The table's first row of each run: "| ⚑ #6 <folder> | …". */
const runRows = (md: string): string[] => md.split('\n').filter((l) => /^\| (⚑ )?#\d+ /.test(l));

describe('loadproof trend over ten runs, nominal then degraded', () => {
  beforeAll(async () => {
    const ws = scenarioWorkspace(SCENARIO);
    reports = ws.out;
    // The nominal runs one at a time: a run beside another's start-up (a second of CPU and a full collection) on two
    // busy cores can stall long enough to look like a regression of its own. The degraded ones are far apart from
    // them whatever their stalls: three at a time.
    await runBatch(ws.file, 'nominal', 5, 1);
    await runBatch(ws.file, 'degraded', 5, 3);
    folders = runFolders(reports);
  }, 300_000);

  it('orders them by start, shows the change, and flags the first degraded run and no nominal one', async () => {
    expect(folders).toHaveLength(10);
    const out = join(mkdtempSync(join(tmpdir(), 'loadproof-trend-out-')), 'trend');
    const { code, stdout, stderr } = await runCli(['trend', reports, '--out', out]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('trended: 10 runs');
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    const rows = runRows(md);
    // `latest` is not an eleventh run; the runs are in the order they started.
    expect(rows).toHaveLength(10);
    const summaries = folders.map((f) => JSON.parse(readFileSync(join(reports, f, 'summary.json'), 'utf8')));
    const order = folders
      .map((f, i) => ({ f, at: summaries[i].startedAt as string }))
      .sort((a, b) => a.at.localeCompare(b.at));
    rows.forEach((row, i) => expect(row).toContain(`#${i + 1} ${order[i]!.f} |`));
    // The first five are nominal, the last five degraded: no nominal run is flagged, the first degraded one is, on its
    // p95 (a degraded run may be flagged against the one before it too: a stall of a busy machine slows it further).
    const flagged = rows.filter((r) => r.startsWith('| ⚑ '));
    const numbers = flagged.map((r) => Number(/#(\d+)/.exec(r)![1]));
    expect(numbers[0], md).toBe(6);
    expect(numbers.every((n) => n >= 6)).toBe(true);
    expect(flagged[0]).toMatch(/⚑ p95.* up against #5 \|$/);
    expect(md).toMatch(/#6 \S+ against #5 \S+: regression, steady: burst band: p95 /);
    expect(md).toContain('note: mock profiles differ: nominal and degraded');
    // Every p95 in the table is its summary's steady-state p95 (model time), as the run's own table says it.
    for (const [i, row] of rows.entries()) {
      const s = summaries[folders.indexOf(order[i]!.f)];
      const p95 = s.phases[0].steadyLatencyMs.p95 as number;
      const shown = p95 >= 1000 ? `${(p95 / 1000).toFixed(2)}s` : `${Math.round(p95)}ms`;
      expect(row).toContain(`| steady | ${shown} (\\< 4.00s) | ${s.phases[0].goodputRpm.toFixed(1)} |`);
    }
    const png = readFileSync(join(out, 'trend.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.length).toBeGreaterThan(10_000);
    const html = readFileSync(join(out, 'trend.html'), 'utf8');
    expect(html).toContain('<img alt="trended: p95, goodput');
    expect(html).toContain('src="data:image/png;base64,');
    expect(html).not.toMatch(/<script|https?:\/\//);
    expect((html.match(/<tr class="flagged">/g) ?? []).length).toBe(1);
  });

  it('against a nominal baseline, every degraded run is flagged, and --fail-on-flag fails on the latest (exit 1)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'loadproof-trend-out-')), 'trend');
    const first = join(reports, folders[0]!);
    const { code, stdout } = await runMain(['trend', reports, '--baseline', first, '--out', out, '--fail-on-flag']);
    expect(code, stdout).toBe(1);
    const rows = runRows(readFileSync(join(out, 'trend.md'), 'utf8'));
    expect(rows.filter((r) => r.startsWith('| ⚑ ')).map((r) => /#(\d+)/.exec(r)![1])).toEqual([
      '6',
      '7',
      '8',
      '9',
      '10',
    ]);
  });

  it('no usable run: exit 2, naming each folder and why, nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-bad-'));
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'summary.json'), 'not json');
    const out = join(dir, 'trend');
    const { code, stderr } = await runMain(['trend', dir, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(`no usable run among ${dir}: ${join(dir, 'a')}: summary.json: not JSON`);
    expect(() => readFileSync(join(out, 'trend.md'))).toThrow();
  });
});

/** A summary.json with only what a trend reads: one phase, its p95 and its verdict's interval. */
const minimalSummary = (scenario: string, startedAt: string): string =>
  JSON.stringify({
    schemaVersion: 5,
    scenario,
    planIdentity: 'sha256:plan',
    environment: 'mock',
    target: { profile: 'nominal' },
    timeScale: 20,
    startedAt,
    partial: false,
    verdict: {
      status: 'pass',
      notes: [],
      checks: [{ id: 'latency_p95_target', phase: 'steady', band: 'sustained', interval: [1800, 2000] }],
    },
    generator: { eventLoopDelayP99Ms: 5, eventLoopDelayMaxMs: 9 },
    phases: [
      {
        name: 'steady',
        durationS: 60,
        offeredRpm: 100,
        goodputRpm: 100,
        sent: 100,
        outcomes: { ok: 100, http_429: 0, http_504: 0, http_other: 0 },
        errors: {},
        sendLagMs: { max: 10 },
        steadyLatencyMs: { count: 83, p95: 1900 },
        target: { band: 'sustained', p95Ms: 2500 },
      },
    ],
  });

describe('loadproof trend: the folders named', () => {
  it('reads every folder named, not only the last; one section and one PNG per scenario', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-args-'));
    const run = (name: string, scenario: string, at: string): string => {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'summary.json'), minimalSummary(scenario, at));
      return join(dir, name);
    };
    const a = run('a', 'ci', '2026-11-27T10:00:00.000Z');
    const b = run('b', 'ci', '2026-11-27T11:00:00.000Z');
    const c = run('c', 'spike', '2026-11-27T10:30:00.000Z');
    const out = join(dir, 'trend');
    const { code, stdout, stderr } = await runMain(['trend', b, a, c, '--out', out]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('ci: 2 runs, 0 flagged');
    expect(stdout).toContain('spike: 1 runs, 0 flagged');
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    expect(md).toMatch(
      /## ci\n[^]*trend-1\.png[^]*\| #1 a \|[^]*\| #2 b \|[^]*## spike\n[^]*trend-2\.png[^]*\| #1 c \|/,
    );
    expect(readFileSync(join(out, 'trend-1.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(join(out, 'trend-2.png')).subarray(1, 4).toString()).toBe('PNG');
  });
});
