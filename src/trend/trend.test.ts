/**
 * The trend's logic on synthetic summaries: runs grouped by scenario and ordered by start, goodput for a summary
 * before schemaVersion 5, flags where compare would raise them (and not where it would not), and hostile folders
 * skipped with a reason.
 */
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { trendChart } from './chart.js';
import type { TrendSection } from './content.js';
import { flagRuns } from './flags.js';
import { readRuns } from './read-runs.js';
import { groupByScenario, type TrendPoint } from './series.js';
import { flagCompleteRuns } from './stopped-early.js';
import { type TrendSummary, trendSummary } from './summary-schema.js';

interface Phase {
  name?: string;
  p95?: number;
  interval?: [number, number] | null;
  sent?: number;
  ok?: number;
  http429?: number;
  goodput?: number;
}

/** A summary.json with what a trend reads (and one field it does not). */
function summary(startedAt: string, phases: Phase[] = [{}], scenario = 'ci', schemaVersion = 5): TrendSummary {
  const full = phases.map((p) => ({
    name: p.name ?? 'steady',
    p95: p.p95 ?? 1900,
    interval: p.interval === undefined ? ([1800, 2000] as [number, number]) : p.interval,
    sent: p.sent ?? 100,
    ok: p.ok ?? (p.sent ?? 100) - (p.http429 ?? 0),
    http429: p.http429 ?? 0,
    goodput: p.goodput,
  }));
  return {
    schemaVersion,
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
      checks: full.map((p) => ({ id: 'latency_p95_target', phase: p.name, band: 'sustained', interval: p.interval })),
    },
    generator: { eventLoopDelayP99Ms: 5, eventLoopDelayMaxMs: 9 },
    phases: full.map((p) => ({
      name: p.name,
      durationS: 60,
      offeredRpm: 100,
      ...(schemaVersion >= 5 ? { goodputRpm: p.goodput ?? p.ok } : {}),
      sent: p.sent,
      outcomes: { ok: p.ok, http_429: p.http429, http_504: 0, http_other: 0 },
      errors: { timeout: 0 },
      sendLagMs: { max: 10 },
      steadyLatencyMs: { count: 83, p95: p.p95 },
      target: { band: 'sustained', p95Ms: 2500 },
    })),
  };
}

const point = (dir: string, s: TrendSummary): TrendPoint => groupByScenario([{ dir, summary: s }])[0]!.runs[0]!;
const OPTIONS = { tolerance: 0.1, alpha: 0.01 };

describe('groupByScenario', () => {
  it('orders by start, not by the order the folders were given, one group per scenario', () => {
    const groups = groupByScenario([
      { dir: 'c', summary: summary('2026-11-27T10:02:00.000Z') },
      { dir: 'x', summary: summary('2026-11-27T10:00:30.000Z', [{ name: 'other' }], 'spike') },
      { dir: 'a', summary: summary('2026-11-27T10:00:00.000Z') },
      { dir: 'b', summary: summary('2026-11-27T10:01:00.000Z', [{}, { name: 'busy' }]) },
    ]);
    expect(groups.map((g) => g.scenario)).toEqual(['ci', 'spike']);
    expect(groups[0]!.runs.map((r) => r.dir)).toEqual(['a', 'b', 'c']);
    expect(groups[0]!.phaseNames).toEqual(['steady', 'busy']);
    expect(groups[1]!.runs.map((r) => r.dir)).toEqual(['x']);
  });

  it('takes goodput from a v5 summary, and computes it as 2xx ÷ model minutes from an older one', () => {
    const [v5] = groupByScenario([{ dir: 'a', summary: summary('2026-11-27T10:00:00Z', [{ ok: 90, goodput: 91.5 }]) }]);
    const [v4] = groupByScenario([{ dir: 'b', summary: summary('2026-11-27T10:00:00Z', [{ ok: 90 }], 'ci', 4) }]);
    expect(v5!.runs[0]!.phases[0]!.goodputRpm).toBe(91.5);
    expect(v4!.runs[0]!.phases[0]!.goodputRpm).toBe(90);
  });
});

describe('flagRuns', () => {
  const steady = point('1', summary('2026-11-27T10:00:00Z'));
  const twin = point('2', summary('2026-11-27T10:01:00Z', [{ p95: 1950, interval: [1850, 2060] }]));

  it('does not flag a run whose p95 interval overlaps the first run’s, nor the first run itself', () => {
    const flags = flagRuns([steady, twin], OPTIONS);
    expect(flags.map((f) => f.flagged)).toEqual([false, false]);
    expect(flags[0]!.against).toBeNull();
    expect(flags[1]!.against).toBe(steady);
  });

  it('flags a p95 whose interval lies above the first run’s by more than the tolerance, on every run it lasts', () => {
    const slow = point('3', summary('2026-11-27T10:02:00Z', [{ p95: 6000, interval: [5000, 7000] }]));
    const slowAgain = point('4', summary('2026-11-27T10:03:00Z', [{ p95: 6100, interval: [5100, 7200] }]));
    const flags = flagRuns([steady, twin, slow, slowAgain], OPTIONS);
    expect(flags.map((f) => f.flagged)).toEqual([false, false, true, true]);
    expect(flags.map((f) => f.against)).toEqual([null, steady, steady, steady]);
    expect(flags[2]!.findings).toEqual([
      expect.objectContaining({ phase: 'steady', figure: 'p95', kind: 'regression' }),
    ]);
    // Against a baseline, the same: every slow run, the baseline's twin not.
    expect(flagRuns([twin, slow, slowAgain], OPTIONS, steady).map((f) => f.flagged)).toEqual([false, true, true]);
  });

  const series = (p95s: readonly number[]): TrendPoint[] =>
    p95s.map((p95, i) =>
      point(`r${i}`, summary(`2026-11-27T10:0${i}:00.000Z`, [{ p95, interval: [p95 * 0.95, p95 * 1.05] }])),
    );

  it('flags a p95 that creeps up 8 % a run once it is clearly above the first run’s, and every run after', () => {
    // No run is clearly above the one before it (8 % < the 10 % tolerance, intervals overlapping).
    const flags = flagRuns(series(Array.from({ length: 10 }, (_, i) => 1000 * 1.08 ** i)), OPTIONS);
    const first = flags.findIndex((f) => f.flagged);
    expect(first).toBeGreaterThan(1);
    expect(flags.map((f) => f.flagged)).toEqual(Array.from({ length: 10 }, (_, i) => i >= first));
  });

  it('keeps a lasting regression flagged on the runs after the one where it began', () => {
    const flags = flagRuns(series([1000, 1000, 1000, 2000, 2000, 2000]), OPTIONS);
    expect(flags.map((f) => f.flagged)).toEqual([false, false, false, true, true, true]);
  });

  it('does not compare a run unlike the reference (environment, mock profile, time scale, plan), and says why', () => {
    const [reference, slower] = series([1000, 2000]);
    const unlikeIt = (change: Partial<TrendSummary>): TrendPoint =>
      point('x', { ...slower!.summary, ...change } as TrendSummary);
    const runs = [
      reference!,
      unlikeIt({ environment: 'sandbox', target: { profile: null } } as Partial<TrendSummary>),
      unlikeIt({ target: { profile: 'degraded' } } as Partial<TrendSummary>),
      unlikeIt({ timeScale: 1, planIdentity: 'sha256:other' }),
      slower!,
    ];
    const flags = flagRuns(runs, OPTIONS);
    expect(flags.map((f) => f.flagged)).toEqual([false, false, false, false, true]);
    expect(flags.map((f) => f.notCompared)).toEqual([
      null,
      "environment sandbox, the reference's mock; mock profile none, the reference's nominal",
      "mock profile degraded, the reference's nominal",
      "time scale 1, the reference's 20; another plan (phases, rates, seeds or time scale)",
      null,
    ]);
    expect(flags.slice(1, 4).every((f) => f.against === null && f.findings.length === 0)).toBe(true);
  });

  it('does not flag a p95 just inside the tolerance', () => {
    // 2000 × 1.1 = 2200: a lower end of 2190 is no clear change.
    const near = point('3', summary('2026-11-27T10:02:00Z', [{ p95: 2400, interval: [2190, 2600] }]));
    expect(flagRuns([steady, near], OPTIONS)[1]!.flagged).toBe(false);
    const over = point('3', summary('2026-11-27T10:02:00Z', [{ p95: 2400, interval: [2210, 2600] }]));
    expect(flagRuns([steady, over], OPTIONS)[1]!.flagged).toBe(true);
  });

  it('flags a 429 rate higher than chance explains (Fisher, Holm), not a rise chance explains', () => {
    const some = point('3', summary('2026-11-27T10:02:00Z', [{ http429: 2 }]));
    const many = point('4', summary('2026-11-27T10:03:00Z', [{ http429: 30 }]));
    const flags = flagRuns([steady, some, many], OPTIONS);
    expect(flags.map((f) => f.flagged)).toEqual([false, false, true]);
    expect(flags[2]!.findings[0]).toMatchObject({ figure: 'http429', kind: 'regression' });
    expect(flags[2]!.findings[0]!.text).toContain("Fisher's exact test");
  });

  it('says when a p95 cannot be tested: too few answers to bound it', () => {
    const unbounded = point('3', summary('2026-11-27T10:02:00Z', [{ p95: 9000, interval: [5000, null as never] }]));
    const none = point('4', summary('2026-11-27T10:03:00Z', [{ p95: 9000, interval: null }]));
    const flags = flagRuns([steady, unbounded, none], OPTIONS);
    // An interval with a lower end above the other's upper end is still a regression (as compare takes it).
    expect(flags[1]!.flagged).toBe(true);
    expect(flags[2]!.flagged).toBe(false);
    expect(flags[2]!.notes).toContain('no p95 interval on both sides, p95 not tested: steady');
  });
});

describe('readRuns: hostile folders are skipped, each with one line of reason', () => {
  const fresh = (): string => mkdtempSync(join(tmpdir(), 'loadproof-trend-'));
  const runIn = (parent: string, name: string, text: string): string => {
    const dir = join(parent, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'summary.json'), text);
    return dir;
  };

  it('reads a folder of runs, leaves `latest` out, and skips the bad ones with their reasons', async () => {
    const reports = fresh();
    const good = runIn(reports, '20261127T100000Z-ci', JSON.stringify(summary('2026-11-27T10:00:00.000Z')));
    symlinkSync(good, join(reports, 'latest'));
    runIn(reports, 'not-json', '{"schemaVersion": 5,');
    runIn(reports, 'wrong', JSON.stringify({ ...summary('2026-11-27T10:00:00Z'), phases: 'none' }));
    const huge = runIn(reports, 'huge', '');
    truncateSync(join(huge, 'summary.json'), 50 * 1024 * 1024);
    const outside = fresh();
    writeFileSync(join(outside, 'summary.json'), JSON.stringify(summary('2026-11-27T11:00:00Z')));
    mkdirSync(join(reports, 'linked'));
    symlinkSync(join(outside, 'summary.json'), join(reports, 'linked', 'summary.json'));
    mkdirSync(join(reports, 'empty'));

    const { runs, skipped } = await readRuns([reports, join(reports, 'latest')]);
    expect(runs.map((r) => r.dir)).toEqual([good]);
    const reason = (name: string): string | undefined => skipped.find((s) => s.dir === join(reports, name))?.reason;
    expect(reason('not-json')).toBe('summary.json: not JSON');
    expect(reason('wrong')).toMatch(/^summary\.json: phases: /);
    expect(reason('huge')).toMatch(/^summary\.json: 52428800 bytes, expected at most 16777216$/);
    expect(reason('linked')).toMatch(/summary\.json: a symbolic link, expected a regular file/);
    expect(reason('empty')).toMatch(/^no summary\.json/);
    for (const s of skipped) expect(s.reason).not.toContain('\n');
  });

  it('reads nothing through a link out of a run folder', async () => {
    const reports = fresh();
    const outside = fresh();
    writeFileSync(join(outside, 'secret.json'), '{}');
    const dir = runIn(reports, 'run', JSON.stringify(summary('2026-11-27T10:00:00Z')));
    symlinkSync(join(outside, 'secret.json'), join(dir, 'events.ndjson'));
    const { runs, skipped } = await readRuns([dir]);
    expect(runs).toEqual([]);
    expect(skipped[0]!.reason).toMatch(/events\.ndjson: a symbolic link, expected a regular file/);
  });
});

describe('someone else’s figures and names', () => {
  it('refuses a figure no run writes (a p95 of 1e308 ms, a goodput of 1e308) and a name a scenario file could not give', () => {
    const base = summary('2026-11-27T10:00:00Z');
    const withPhase = (patch: Record<string, unknown>): unknown => ({
      ...base,
      phases: [{ ...base.phases[0]!, ...patch }],
    });
    expect(trendSummary.safeParse(base).success).toBe(true);
    expect(trendSummary.safeParse(withPhase({ steadyLatencyMs: { count: 83, p95: 1e308 } })).success).toBe(false);
    expect(trendSummary.safeParse(withPhase({ goodputRpm: 1e308 })).success).toBe(false);
    expect(trendSummary.safeParse(withPhase({ name: 'step\u202e-100' })).success).toBe(false);
    expect(trendSummary.safeParse({ ...base, scenario: 'ci\nloadproof: ok' }).success).toBe(false);
    expect(trendSummary.safeParse({ ...base, environment: 'mock\u2066' }).success).toBe(false);
  });
});

describe('a run stopped early', () => {
  const steady = point('1', summary('2026-11-27T10:00:00Z'));
  const failing = (at: string): TrendPoint => point(at, summary(at, [{ http429: 60 }]));
  const stopped = (p: TrendPoint): TrendPoint => ({ ...p, summary: { ...p.summary, interrupted: true } });

  it('is never flagged, nor the reference of the run after it: that one is compared with the complete run before', () => {
    const halted = stopped(failing('2026-11-27T10:01:00Z'));
    const next = point('3', summary('2026-11-27T10:02:00Z'));
    const flags = flagCompleteRuns([steady, halted, next], (complete) => flagRuns(complete, OPTIONS));
    expect(flags[1]).toMatchObject({ against: null, flagged: false });
    expect(flags[2]!.against).toBe(steady);
    // Without the mark, the same run is flagged: the test above is not vacuous.
    const plain = flagCompleteRuns([steady, failing('2026-11-27T10:01:00Z')], (c) => flagRuns(c, OPTIONS));
    expect(plain[1]!.flagged).toBe(true);
  });
});

describe('trendChart', () => {
  const section = (phases: number): TrendSection => {
    const names = Array.from({ length: phases }, (_, i) => ({ name: `step-${(i + 1) * 100}` }));
    const [trend] = groupByScenario([{ dir: 'a', summary: summary('2026-11-27T10:00:00Z', names) }]);
    return {
      trend: trend!,
      flags: [{ against: null, findings: [], flagged: false, notes: [], notCompared: null }],
      pngFile: 'trend.png',
      baselineUsed: false,
    };
  };
  const drawnPhases = (chart: Record<string, unknown>): { label: string; borderColor: string }[] =>
    (
      chart.data as { datasets: { label: string; borderColor: string; yAxisID: string; borderDash?: unknown }[] }
    ).datasets.filter((d) => d.yAxisID === 'p95' && d.borderDash === undefined);
  const title = (chart: Record<string, unknown>): string[] =>
    (chart.options as { plugins: { title: { text: string[] } } }).plugins.title.text;

  it('gives each phase drawn its own colour (step-100 and step-300 too) and says "1 run"', () => {
    const chart = trendChart(section(10));
    const colours = drawnPhases(chart).map((d) => d.borderColor);
    expect(colours).toHaveLength(10);
    expect(new Set(colours).size).toBe(10);
    expect(title(chart)[0]).toBe('ci: per phase across 1 run');
  });

  it('draws at most 12 phases of a 1,000-phase summary, and says so in its title', () => {
    const chart = trendChart(section(1000));
    expect(drawnPhases(chart)).toHaveLength(12);
    expect(title(chart)).toContain('the first 12 of 1000 phases drawn; the table lists them all');
  });
});
