/**
 * `loadproof trend` over ten runs of one tiny scenario: two real runs against loadproof's mock at a loopback URL, the
 * first against the nominal mock, the second against the same mock with 30 % of its answers 6 s late (the service got
 * slower under an unchanged test: same plan, environment, profile and time scale), each copied five times with its
 * start shifted (trend reads only summary.json). Every degraded run is flagged against the first run, no nominal one,
 * the PNG and the HTML are written; against a nominal baseline with --fail-on-flag, the degraded latest run fails CI
 * (exit 1). No usable run is bad input (exit 2). The flag rules themselves are unit-tested (src/trend/trend.test.ts).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const K = 20;

// One phase, 150 requests; at k = 20 about 3 s of wall time a run.
const scenarioAt = (url: string): string =>
  `name: trended\ndescription: a run among many\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n  - { name: steady, duration: 1m, rpm: 150, warmup: 10s }\n`;

/** One real run against a mock of `options` started for it (and closed after): its run folder. */
async function runAgainst(options: MockServerOptions): Promise<string> {
  const server = await startMockServer({ timeScale: K, ...options });
  try {
    const ws = scenarioWorkspace(scenarioAt(server.url));
    const run = await runCli(
      ['run', '--no-charts', '--quiet', ws.file, '--time-scale', String(K), '--out', ws.out],
      {},
      // A bound on a hung child only: on a busy machine a run took many times as long as alone.
      120_000,
    );
    expect([0, 1, 5], run.stderr).toContain(run.code);
    return join(ws.out, runFolders(ws.out)[0]!);
  } finally {
    await server.close();
  }
}

/** A copy of a run folder as if it had started `hours` after 2026-11-27 08:00 UTC, named as a run folder is. */
function copyAt(from: string, reports: string, hours: number): string {
  const startedAt = new Date(Date.UTC(2026, 10, 27, 8 + hours)).toISOString();
  const name = `${startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-trended`;
  cpSync(from, join(reports, name), { recursive: true });
  const summary = JSON.parse(readFileSync(join(from, 'summary.json'), 'utf8'));
  writeFileSync(join(reports, name, 'summary.json'), JSON.stringify({ ...summary, startedAt }));
  return name;
}

/** The table's first row of each run: "| ⚑ #6 <folder> | …". */
const runRows = (md: string): string[] => md.split('\n').filter((l) => /^\| (⚑ )?#\d+ /.test(l));

const flaggedNumbers = (rows: readonly string[]): number[] =>
  rows.filter((r) => r.startsWith('| ⚑ ')).map((r) => Number(/#(\d+)/.exec(r)![1]));

describe('loadproof trend over ten runs, nominal then degraded', () => {
  let nominal: string;
  let reports: string;
  let names: string[];

  beforeAll(async () => {
    // One after the other: a run beside another's start-up on two busy cores can stall enough to look slower.
    nominal = await runAgainst({});
    const degraded = await runAgainst({ faults: { slowRate: 0.3, slowExtraMs: 6000 } });
    reports = mkdtempSync(join(tmpdir(), 'loadproof-trend-reports-'));
    names = Array.from({ length: 10 }, (_, i) => copyAt(i < 5 ? nominal : degraded, reports, i + 1));
  }, 300_000);

  it('orders them by start, shows the change, and flags every degraded run against the first, no nominal one', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'loadproof-trend-out-')), 'trend');
    // Given in reverse: the order is the runs' start, not the folders'.
    const { code, stdout, stderr } = await runCli([
      'trend',
      ...names.map((n) => join(reports, n)).reverse(),
      '--out',
      out,
    ]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('trended: 10 runs, 5 flagged (the latest among them)');
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    expect(md).toContain(`each compared with one reference, the first run, #1 ${names[0]}, as loadproof compare would`);
    const rows = runRows(md);
    expect(rows).toHaveLength(10);
    rows.forEach((row, i) => expect(row).toContain(`#${i + 1} ${names[i]} |`));
    expect(rows[0]).toMatch(/\| reference \|$/);
    expect(flaggedNumbers(rows), md).toEqual([6, 7, 8, 9, 10]);
    for (const row of rows.slice(5)) expect(row).toMatch(/⚑ p95.* up against #1 \|$/);
    for (const n of [6, 10])
      expect(md).toMatch(
        new RegExp(`#${n} ${names[n - 1]} against #1 ${names[0]}: regression, steady: burst band: p95 `),
      );
    // Every p95 in the table is its summary's steady-state p95 (model time), as the run's own table says it.
    for (const [i, row] of rows.entries()) {
      const s = JSON.parse(readFileSync(join(reports, names[i]!, 'summary.json'), 'utf8'));
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
    // The same five runs as the Markdown table, each on every row of its phases (one here).
    expect((html.match(/<tr class="flagged">/g) ?? []).length).toBe(5);
  });

  it('against a nominal baseline outside the folder, every degraded run is flagged, and --fail-on-flag exits 1', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'loadproof-trend-out-')), 'trend');
    const { code, stdout } = await runMain(['trend', reports, '--baseline', nominal, '--out', out, '--fail-on-flag']);
    expect(code, stdout).toBe(1);
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    expect(md).toContain(`each compared with one reference, the baseline ${nominal}, as loadproof compare would`);
    const rows = runRows(md);
    expect(flaggedNumbers(rows)).toEqual([6, 7, 8, 9, 10]);
    expect(rows[9]).toMatch(/⚑ p95.* up against the baseline \|$/);
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
    expect(stdout).toContain('spike: 1 run, 0 flagged');
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    expect(md).toMatch(
      /## ci\n[^]*trend-1\.png[^]*\| #1 a \|[^]*\| #2 b \|[^]*## spike\n[^]*trend-2\.png[^]*\| #1 c \|/,
    );
    expect(readFileSync(join(out, 'trend-1.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(join(out, 'trend-2.png')).subarray(1, 4).toString()).toBe('PNG');
  });
});
