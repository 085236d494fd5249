/**
 * One latency, everywhere: for every shipped scenario, run by the real CLI against the embedded mock, each latency
 * figure of a phase (p50, p95, p99 of the definition, steady state) reads the same in the terminal table, summary.json,
 * report.md, report.html, the charts' data and junit.xml.
 *
 * The charts' data: report.html inlines the chart.js configurations it draws (and the PNGs are drawn from the same
 * `runCharts(summary)`), so the test reads them from the page and checks them against `runCharts` of the folder's
 * summary.json and against the summary's figures. The runs go in parallel, each bounded (k = 250, no PNGs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { formatMs } from '../../src/core/index.js';
import type { Summary } from '../../src/judge/index.js';
import { runCharts } from '../../src/report/charts.js';
import { runCli, runFolders, scenarioWorkspace } from '../helpers/cli.js';

const DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const K = '200';
const SCENARIOS = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

type Stat = number | null | 'unanswered';
type Triple = { p50: Stat; p95: Stat; p99: Stat };
const text = (v: Stat): string => (v === null ? '—' : v === 'unanswered' ? 'unanswered' : formatMs(v));
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The scenario as a file the embedded mock can run: sandbox-burst targets the real sandbox (its phases are burst's),
 * so its target and notice give way to the mock's.
 */
function runnable(file: string): string {
  const yaml = readFileSync(join(DIR, file), 'utf8');
  if (!/environment: sandbox/.test(yaml)) return yaml;
  return yaml.replace(/^target:[\s\S]*?(?=^phases:)/m, 'target:\n  environment: mock\n');
}

interface Chart {
  name: string;
  title: string;
  config: { data: { datasets: { label: string; data: { x: number; y: number | null }[] }[] } };
}

function chartsInPage(html: string): { name: string; config: Chart['config'] }[] {
  const json = /<script type="application\/json" id="loadproof-charts">([\s\S]*?)<\/script>/.exec(html)![1]!;
  return JSON.parse(json) as { name: string; config: Chart['config'] }[];
}

/** A latency distribution curve's value at percentile p (x = 1 / (1 − p)), as drawn. */
const curveAt = (chart: Chart, label: string, p: number): number | null | undefined =>
  chart.config.data.datasets.find((d) => d.label === label)?.data.find((pt) => Math.abs(pt.x - 1 / (1 - p)) < 1e-9)?.y;

/** The HDR value a summary rounds to 3 decimals: the chart keeps it whole. */
const sameMs = (drawn: number | null | undefined, stat: Stat): void => {
  if (stat === 'unanswered') expect(drawn).toBeGreaterThan(1e8);
  else if (stat === null) expect(drawn ?? null).toBeNull();
  else expect(drawn).toBeCloseTo(stat, 2);
};

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

function expectCharts(summary: Summary, html: string): void {
  const drawn = chartsInPage(html);
  const charts = runCharts(summary) as unknown as Chart[];
  // What the page draws is what runCharts makes of summary.json (the PNGs come from the same function).
  expect(drawn).toEqual(JSON.parse(JSON.stringify(charts.map((c) => ({ name: c.name, config: c.config })))));
  const byName = (name: string): Chart => charts.find((c) => c.name === name)!;
  for (const name of ['latency-over-time', 'latency-distribution'])
    expect(byName(name).title, name).toMatch(/429s answered at once left out.*model/);
  const distribution = byName('latency-distribution');
  summary.phases.slice(0, 10).forEach((p) => {
    sameMs(curveAt(distribution, `phase ${p.name}`, 0.5), p.latencyMs.p50);
    sameMs(curveAt(distribution, `phase ${p.name}`, 0.95), p.latencyMs.p95);
    sameMs(curveAt(distribution, `phase ${p.name}`, 0.99), p.latencyMs.p99);
  });
  sameMs(curveAt(distribution, 'all requests', 0.95), summary.overall.latencyMs.p95);
  // Over time: the timeline's windows, in the same definition.
  const overTime = byName('latency-over-time');
  const p95 = overTime.config.data.datasets.find((d) => d.label === 'p95')!.data.map((pt) => pt.y);
  expect(p95).toEqual(summary.timeline.map((w) => (typeof w.latencyMs.p95 === 'number' ? w.latencyMs.p95 : null)));
}

function expectJunit(summary: Summary, junit: string): void {
  for (const c of summary.verdict.checks.filter((x) => x.id === 'latency_p95_target' && x.observed !== null)) {
    const phase = summary.phases.find((p) => p.name === c.phase)!;
    const judged = phase.bands.length > 1 ? phase.bands.find((b) => b.band === c.band)! : phase;
    expect(c.observed).toBe(judged.steadyLatencyMs.p95);
    expect(junit).toContain(`p(95) ${text(c.observed)}`);
  }
}

describe.concurrent(
  'every latency figure of a phase agrees across the terminal, summary.json, reports, charts, junit',
  () => {
    it.each(SCENARIOS)(
      '%s',
      async (file) => {
        const ws = scenarioWorkspace(runnable(file));
        const run = await runCli(
          ['run', ws.file, '--time-scale', K, '--no-charts', '--quiet', '--out', ws.out],
          {},
          150_000,
        );
        // Pass, fail, the run's own failure (a busy machine can stop it) or inconclusive: whatever the verdict, a
        // finished folder's figures must agree.
        expect([0, 1, 4, 5], run.stderr).toContain(run.code);
        const dir = join(ws.out, runFolders(ws.out)[0]!);
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
        const md = readFileSync(join(dir, 'report.md'), 'utf8');
        const html = readFileSync(join(dir, 'report.html'), 'utf8');
        expectTerminal(run.stdout, 'overall', summary.overall.steadyLatencyMs);
        expect(summary.latencyDefinition).toMatch(/except those answered 429 at once/);
        for (const p of summary.phases) {
          expectTerminal(run.stdout, p.name, p.steadyLatencyMs);
          expectMarkdown(md, p.name, p.steadyLatencyMs);
          expectHtml(html, p.name, p.steadyLatencyMs);
        }
        expectCharts(summary, html);
        expectJunit(summary, readFileSync(join(dir, 'junit.xml'), 'utf8'));
      },
      200_000,
    );
  },
);
