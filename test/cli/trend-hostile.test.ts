/**
 * `loadproof trend` against folders someone else made (a CI artefact, a folder attached to a ticket): its --out is
 * never inside a run folder (a run folder is evidence; a file added to it fails `loadproof verify`), and names read
 * from a summary or a folder name (scenario, phase, run) reach trend.md, trend.html and the terminal without bidi
 * overrides or line breaks, as the scenario schema would have refused them. Start times are shown in UTC, as the
 * column header says; a run stopped by a signal is marked. Two different runs that started at the same instant are
 * compared like any other two.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const minimalSummary = (scenario: string, phase: string, startedAt: string, failed = 0): string =>
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
      checks: [{ id: 'latency_p95_target', phase, band: 'sustained', interval: [1800, 2000] }],
    },
    generator: { eventLoopDelayP99Ms: 5, eventLoopDelayMaxMs: 9 },
    phases: [
      {
        name: phase,
        durationS: 60,
        offeredRpm: 100,
        goodputRpm: 100 - failed,
        sent: 100,
        outcomes: { ok: 100 - failed, http_429: 0, http_504: 0, http_other: failed },
        errors: {},
        sendLagMs: { max: 10 },
        steadyLatencyMs: { count: 83, p95: 1900 },
        target: { band: 'sustained', p95Ms: 2500 },
      },
    ],
  });

const BIDI = /[\u202a-\u202e\u2066-\u2069]/;

describe('loadproof trend: hostile folders and --out', () => {
  it('refuses an --out inside a run folder (exit 2): the run stays intact for verify', async () => {
    const ws = scenarioWorkspace(
      'name: tiny\ndescription: one short phase\nphases:\n  - { name: steady, duration: 30s, rpm: 60 }\n',
    );
    const run = await runMain(['run', ws.file, '--no-charts', '--quiet', '--time-scale', '60', '--out', ws.out]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    const dir = join(ws.out, runFolders(ws.out)[0]!);
    const before = readdirSync(dir).sort();
    const trend = await runMain(['trend', dir, '--out', join(dir, 'trend')]);
    expect(trend.code, trend.stdout).toBe(2);
    expect(trend.stderr).toContain('--out');
    expect(readdirSync(dir).sort()).toEqual(before);
    const verify = await runMain(['verify', dir]);
    expect(verify.code, verify.stdout).toBe(0);
  }, 120_000);

  it('refuses an --out that is the folder of runs read, or holds it (exit 2): nothing is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-out-above-'));
    mkdirSync(join(dir, 'reports', 'a'), { recursive: true });
    writeFileSync(join(dir, 'reports', 'a', 'summary.json'), minimalSummary('above', 'steady', '2026-11-20T10:00:00Z'));
    for (const out of [join(dir, 'reports'), dir]) {
      const { code, stderr } = await runMain(['trend', join(dir, 'reports'), '--out', out]);
      expect(code, stderr).toBe(2);
      expect(stderr).toContain('holds the run folder');
    }
    expect(readdirSync(dir)).toEqual(['reports']);
    expect(readdirSync(join(dir, 'reports'))).toEqual(['a']);
  });

  it('a bidi override or a line break in a scenario, phase or folder name reaches no output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-names-'));
    const hostile = 'name\u202eevil\u2066\nsecond line';
    mkdirSync(join(dir, 'run\u202eevil'));
    writeFileSync(
      join(dir, 'run\u202eevil', 'summary.json'),
      minimalSummary(hostile, `p\u202e\nq`, '2026-11-20T10:00:00Z'),
    );
    const out = join(dir, 'trend');
    const { code, stdout, stderr } = await runMain(['trend', dir, '--out', out]);
    // Skipped (exit 2, a name the scenario schema refuses) or shown neutralised (exit 0): either way, no override.
    expect([0, 2]).toContain(code);
    for (const file of ['trend.md', 'trend.html']) {
      let text = '';
      try {
        text = readFileSync(join(out, file), 'utf8');
      } catch {
        continue;
      }
      expect(text, file).not.toMatch(BIDI);
    }
    for (const text of [stdout, stderr]) {
      expect(text).not.toMatch(BIDI);
      expect(text).not.toMatch(/^second line/m);
    }
  });

  it('the start column says UTC: a start written with an offset is shown in UTC', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-utc-'));
    mkdirSync(join(dir, 'a'));
    writeFileSync(join(dir, 'a', 'summary.json'), minimalSummary('tz', 'steady', '2026-11-20T12:00:00+02:00'));
    const out = join(dir, 'trend');
    const { code } = await runMain(['trend', dir, '--out', out]);
    expect(code).toBe(0);
    const md = readFileSync(join(out, 'trend.md'), 'utf8');
    expect(md).toContain('| start (UTC) |');
    expect(md).toContain('| 2026-11-20 10:00:00 |');
  });

  it('two different runs that started at the same instant are still compared: the degraded one is flagged', async () => {
    // Shards given one --start-at, or two CI jobs started together: the same startedAt and plan, different runs.
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-same-start-'));
    for (const [name, failed] of [
      ['a', 0],
      ['b', 50],
    ] as const) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'summary.json'), minimalSummary('twins', 'steady', '2026-11-20T10:00:00Z', failed));
    }
    const out = join(dir, 'trend');
    const { code, stdout } = await runMain(['trend', dir, '--out', out, '--fail-on-flag']);
    // A half-failing run after a clean one: compare would call it a regression, so must trend.
    expect(stdout).toContain('1 flagged');
    expect(code).toBe(1);
  });

  it('a run stopped by a signal is marked as such in the table, not shown as a run like the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loadproof-trend-stopped-'));
    mkdirSync(join(dir, 'a'));
    const summary = JSON.parse(minimalSummary('halted', 'steady', '2026-11-20T10:00:00Z')) as Record<string, unknown>;
    // As summary.json writes a run stopped by SIGINT: interrupted, 30 of 100 planned sent.
    writeFileSync(join(dir, 'a', 'summary.json'), JSON.stringify({ ...summary, interrupted: true }));
    const out = join(dir, 'trend');
    const { code } = await runMain(['trend', dir, '--out', out]);
    expect(code).toBe(0);
    const row = readFileSync(join(out, 'trend.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('| #1 '));
    expect(row).toMatch(/interrupted/i);
  });
});
