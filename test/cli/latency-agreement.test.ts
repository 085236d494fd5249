/**
 * One latency, everywhere. One purpose-made run by the real CLI against the embedded mock, with every kind of request
 * the definition sorts: 429s answered at once (left out), 429s whose retries all ended in 429 (counted), requests
 * dropped at a small maxInFlight (counted as unanswered), two phases with a warm-up (left out of what the tables show).
 * Each phase's steady p50/p95/p99 is computed here from events.ndjson, the definition written out plainly, and
 * summary.json must agree with it; then every rendering (terminal, report.md, report.html, the charts' data, junit.xml)
 * must agree with summary.json, and `loadproof report` judging the folder again gives the same figures.
 *
 * Then every shipped scenario (its ramps' band slices, mode deid, many phases), run at k = 200 without PNGs: each
 * phase's figures read the same in every rendering as in its summary.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { formatMs, UNANSWERED_MS } from '../../src/core/index.js';
import type { Summary } from '../../src/judge/index.js';
import { runCharts } from '../../src/report/charts.js';
import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';

/**
 * The tight mock refuses beyond 30 rpm sustained (60 rpm for 2 minutes) with a Retry-After of 1–2 s: a retry waits at
 * most 1 s, so a Retry-After of 2 s ends the retries at once (a 429 at once) and a retried one may meet a 429 again. At
 * 200 rpm, with answers of about 1.3 s and retries waiting (model time, so whatever the machine), 4 in flight are too
 * few: about a third of the surge's arrivals are dropped (65–75 in runs here), while the calm phase keeps up.
 */
const SCENARIO = `name: agreement
description: 429s retried against a tight limiter, drops at a small maxInFlight, two phases with warm-up
target: { environment: mock, profile: tight }
on429: { policy: retry, maxAttempts: 2, baseDelay: 1s, maxDelay: 1s }
maxInFlight: 4
phases:
  - { name: calm, duration: 1m, rpm: 90, warmup: 20s }
  - { name: surge, duration: 1m, rpm: 200, warmup: 15s }
`;
/** Where each phase's steady state starts (model ms from the run start): its start plus its warm-up. */
const STEADY_FROM_MS: Record<string, number> = { calm: 20_000, surge: 60_000 + 15_000 };

type Stat = number | null | 'unanswered';
type Triple = { p50: Stat; p95: Stat; p99: Stat };
const text = (v: Stat): string => (v === null ? '—' : v === 'unanswered' ? 'unanswered' : formatMs(v));
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Chart {
  name: string;
  title: string;
  config: { data: { datasets: { label: string; data: { x: number; y: number | null }[] }[] } };
}

function chartsInPage(html: string): { name: string; config: Chart['config'] }[] {
  const json = /<script type="application\/json" id="loadproof-charts">([\s\S]*?)<\/script>/.exec(html)![1]!;
  return JSON.parse(json) as { name: string; config: Chart['config'] }[];
}

function expectTerminal(stdout: string, label: string, l: Triple): void {
  const row = stdout.split('\n').find((line) => line.trim().startsWith(`${label} `));
  expect(row, `terminal row ${label}`).toBeDefined();
  expect(row).toMatch(
    new RegExp(`\\s${escape(text(l.p50))}\\s+${escape(text(l.p95))}\\s+${escape(text(l.p99))}(\\s|$)`),
  );
}

function expectMarkdown(md: string, label: string, l: Triple): void {
  const row = md.split('\n').find((line) => line.startsWith(`| ${label} |`));
  expect(row, `report.md row ${label}`).toBeDefined();
  // The p95 cell may carry its interval after the figure.
  expect(row).toMatch(
    new RegExp(`\\| ${escape(text(l.p50))} \\| ${escape(text(l.p95))}( \\([^|]*\\))? \\| ${escape(text(l.p99))} \\|`),
  );
}

function expectHtml(html: string, label: string, l: Triple): void {
  const at = html.indexOf(`<tr><td>${label}</td>`);
  expect(at, `report.html row ${label}`).toBeGreaterThanOrEqual(0);
  const row = html.slice(at, html.indexOf('</tr>', at));
  const cell = (v: Stat): string => `<td class="num">${escape(text(v).replace('<', '&lt;'))}`;
  expect(row).toMatch(new RegExp(`${cell(l.p50)}</td>${cell(l.p95)}[^<]*</td>${cell(l.p99)}</td>`));
}

interface EventLine {
  phase: string;
  intendedAtMs: number;
  outcome: string;
  attempts: number;
  latencyMs: number | null;
}

/**
 * The definition, written out: every request intended after its phase's warm-up, except those never sent and those
 * answered 429 at once (one attempt); a request dropped, abandoned or lost to a stale connection counts as no answer
 * (worse than any target); every other one at its latencyMs (a 429 after its retries included).
 */
function steadyLatencies(events: readonly EventLine[], phase: string | undefined): number[] {
  const values: number[] = [];
  for (const e of events) {
    if ((phase !== undefined && e.phase !== phase) || e.intendedAtMs < STEADY_FROM_MS[e.phase]!) continue;
    if (e.outcome === 'unsent' || (e.outcome === 'http_429' && e.attempts === 1)) continue;
    if (['dropped', 'abandoned', 'stale_connection'].includes(e.outcome)) values.push(Infinity);
    else values.push(e.latencyMs!);
  }
  return values.sort((x, y) => x - y);
}

/** The p-th percentile by nearest rank: the value at rank ⌈p/100 × n⌉ of the sorted values. */
function percentile(sorted: readonly number[], p: number): number | 'unanswered' | null {
  if (sorted.length === 0) return null;
  const v = sorted[Math.max(1, Math.ceil((p / 100) * sorted.length - 1e-9)) - 1]!;
  return v === Infinity ? 'unanswered' : v;
}

const independent = (events: readonly EventLine[], phase?: string): Triple => {
  const sorted = steadyLatencies(events, phase);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
};

/** HDR keeps 3 significant digits (a value reads as the top of its bucket): within 0.2 %. */
function closeTo(actual: Stat | undefined, expected: Stat, what: string): void {
  if (typeof expected !== 'number' || typeof actual !== 'number') expect(actual, what).toBe(expected);
  else
    expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
      expected * 0.002 + 0.001,
    );
}

function expectSameTriple(actual: Triple, expected: Triple, what: string): void {
  for (const k of ['p50', 'p95', 'p99'] as const) closeTo(actual[k], expected[k], `${what} ${k}`);
}

/** A curve's value at percentile p (x = 1 / (1 − p)), as drawn; an unanswered one reads as such. */
function drawnAt(chart: Chart, label: string, p: number): Stat | undefined {
  const data = chart.config.data.datasets.find((d) => d.label === label)?.data;
  expect(data, `${chart.name}: ${label}`).toBeDefined();
  const y = data!.find((pt) => Math.abs(pt.x - 1 / (1 - p)) < 1e-9)?.y;
  return typeof y === 'number' && y >= UNANSWERED_MS / 2 ? 'unanswered' : y;
}

function expectCharts(summary: Summary, html: string, phases: Record<string, Triple>, overall: Triple): void {
  const drawn = chartsInPage(html) as unknown as Chart[];
  const charts = runCharts(summary) as unknown as Chart[];
  // What the page draws is what runCharts makes of summary.json (the PNGs come from the same function).
  expect(drawn).toEqual(JSON.parse(JSON.stringify(charts.map((c) => ({ name: c.name, config: c.config })))));
  const byName = (name: string): Chart => charts.find((c) => c.name === name)!;
  for (const name of ['latency-over-time', 'latency-distribution'])
    expect(byName(name).title, name).toMatch(/429s answered at once left out.*model/);
  // The distribution draws what the tables show: each phase's steady state, and every phase's together.
  const distribution = byName('latency-distribution');
  for (const [name, t] of Object.entries(phases))
    for (const p of [50, 95, 99] as const)
      closeTo(drawnAt(distribution, `phase ${name}, steady state`, p / 100), t[`p${p}`], `chart ${name} p${p}`);
  for (const p of [50, 95, 99] as const)
    closeTo(drawnAt(distribution, 'every phase, steady state', p / 100), overall[`p${p}`], `chart overall p${p}`);
}

/** junit.xml's p95 checks read each phase's steady p95 (one load band a phase here). */
function expectJunit(summary: Summary, junit: string, phases: Record<string, Triple>): void {
  const checks = summary.verdict.checks.filter((x) => x.id === 'latency_p95_target');
  expect(checks.map((c) => c.phase).sort()).toEqual(Object.keys(phases).sort());
  for (const c of checks) {
    closeTo(c.observed as Stat, phases[c.phase!]!.p95, `check ${c.phase}`);
    expect(junit).toContain(`p(95) ${text(c.observed as Stat)}`);
  }
}

function readFolder(dir: string) {
  return {
    summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary,
    md: readFileSync(join(dir, 'report.md'), 'utf8'),
    html: readFileSync(join(dir, 'report.html'), 'utf8'),
    junit: readFileSync(join(dir, 'junit.xml'), 'utf8'),
  };
}

describe('every latency figure of a phase agrees with the definition and across every rendering', () => {
  it('a run with 429s at once, retried 429s, drops and warm-ups, and its folder judged again', async () => {
    const ws = scenarioWorkspace(SCENARIO);
    const run = await runCli(
      ['run', ws.file, '--time-scale', '30', '--no-charts', '--quiet', '--out', ws.out],
      {},
      150_000,
    );
    // Pass, fail, the run's own failure (a busy machine can stop it) or inconclusive: whatever the verdict, a
    // finished folder's figures must agree.
    expect([0, 1, 4, 5], run.stderr).toContain(run.code);
    const dir = join(ws.out, runFolders(ws.out)[0]!);
    const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EventLine);
    // The run holds every kind of request the definition sorts (model-time rates and limits: not the machine's speed).
    const kinds = new Set(
      events.map((e) => (e.outcome === 'http_429' ? `http_429 ×${Math.min(e.attempts, 2)}` : e.outcome)),
    );
    for (const kind of ['ok', 'http_429 ×1', 'http_429 ×2', 'dropped']) expect([...kinds], kind).toContain(kind);

    const phases = { calm: independent(events, 'calm'), surge: independent(events, 'surge') };
    const overall = independent(events);
    const first = readFolder(dir);
    const s = first.summary;
    expect(s.latencyDefinition).toMatch(/except those answered 429 at once/);
    expect(s.phases.map((p) => p.name)).toEqual(['calm', 'surge']);
    for (const p of s.phases) expectSameTriple(p.steadyLatencyMs, phases[p.name as 'calm' | 'surge'], p.name);
    expectSameTriple(s.overall.steadyLatencyMs, overall, 'overall');

    expectTerminal(run.stdout, 'overall', s.overall.steadyLatencyMs);
    for (const p of s.phases) {
      expectTerminal(run.stdout, p.name, p.steadyLatencyMs);
      expectMarkdown(first.md, p.name, p.steadyLatencyMs);
      expectHtml(first.html, p.name, p.steadyLatencyMs);
    }
    expectCharts(s, first.html, phases, overall);
    expectJunit(s, first.junit, phases);

    // Judged again from its folder: the same figures, in every rendering.
    const again = await runCli(['report', dir, '--no-charts'], {}, 150_000);
    expect(again.code, again.stderr).toBe(run.code);
    const second = readFolder(dir);
    for (const [i, p] of second.summary.phases.entries()) {
      expect(p.steadyLatencyMs).toEqual(s.phases[i]!.steadyLatencyMs);
      expectMarkdown(second.md, p.name, p.steadyLatencyMs);
      expectHtml(second.html, p.name, p.steadyLatencyMs);
    }
    expect(second.summary.overall.steadyLatencyMs).toEqual(s.overall.steadyLatencyMs);
    expectCharts(second.summary, second.html, phases, overall);
    expectJunit(second.summary, second.junit, phases);
  }, 300_000);
});

/** junit.xml's p95 checks, one a load band: each reads its band's steady p95 (its phase's, for a phase of one band). */
function expectJunitBands(summary: Summary, junit: string): void {
  for (const c of summary.verdict.checks.filter((x) => x.id === 'latency_p95_target' && x.observed !== null)) {
    const phase = summary.phases.find((p) => p.name === c.phase)!;
    const judged = phase.bands.length > 1 ? phase.bands.find((b) => b.band === c.band)! : phase;
    expect(c.observed).toBe(judged.steadyLatencyMs.p95);
    expect(junit).toContain(`p(95) ${text(c.observed as Stat)}`);
  }
}

const SHIPPED_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const SHIPPED = readdirSync(SHIPPED_DIR).filter((f) => f.endsWith('.yaml'));

/** A shipped scenario the embedded mock can run: sandbox-burst targets the sandbox (its phases are burst's). */
function runnable(file: string): string {
  const yaml = readFileSync(join(SHIPPED_DIR, file), 'utf8');
  if (!/environment: sandbox/.test(yaml)) return yaml;
  return yaml.replace(/^target:[\s\S]*?(?=^phases:)/m, 'target:\n  environment: mock\n');
}

describe.concurrent("every shipped scenario: each phase's latency reads the same in every rendering", () => {
  it.each(SHIPPED)(
    '%s',
    async (file) => {
      const ws = scenarioWorkspace(runnable(file));
      const run = await runCli(
        ['run', ws.file, '--time-scale', '200', '--no-charts', '--quiet', '--out', ws.out],
        {},
        150_000,
      );
      // Whatever the verdict (a busy machine can make it inconclusive or stop the run), the figures must agree.
      expect([0, 1, 4, 5], run.stderr).toContain(run.code);
      const folder = readFolder(join(ws.out, runFolders(ws.out)[0]!));
      const s = folder.summary;
      expectTerminal(run.stdout, 'overall', s.overall.steadyLatencyMs);
      const phases: Record<string, Triple> = {};
      for (const p of s.phases) {
        expectTerminal(run.stdout, p.name, p.steadyLatencyMs);
        expectMarkdown(folder.md, p.name, p.steadyLatencyMs);
        expectHtml(folder.html, p.name, p.steadyLatencyMs);
        phases[p.name] = p.steadyLatencyMs;
      }
      expectCharts(s, folder.html, phases, s.overall.steadyLatencyMs);
      expectJunitBands(s, folder.junit);
    },
    200_000,
  );
});
