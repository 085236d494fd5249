/**
 * deploy/grafana/loadproof.json: the Grafana dashboard for `run --metrics-port`. Every PromQL expression in it is
 * parsed by Prometheus' own grammar (@prometheus-io/lezer-promql, after Grafana's variables are put in as Grafana
 * does) and the metrics it selects are taken from the parse tree; a real run through the CLI is then scraped, and
 * every one of them must be served. The data source is a variable chosen at import, and every figure's title says
 * its unit (model or wall time, or a count).
 */
import { readFileSync } from 'node:fs';

import { parser } from '@prometheus-io/lezer-promql';
import { describe, expect, it } from 'vitest';

import { scenarioWorkspace, startCli } from '../helpers/cli.js';

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/loadproof.json', import.meta.url), 'utf8'));
const panels: any[] = dashboard.panels.flatMap((p: any) => [p, ...(p.panels ?? [])]);
const queried = panels.filter((p) => p.targets !== undefined);
const exprs: string[] = queried.flatMap((p) => p.targets.map((t: any) => t.expr));

/** Grafana's variables as it puts them in: `$instance` as its "All" value, the rate interval as a duration. */
function substituted(expr: string): string {
  const values: Record<string, string> = { instance: '.*', __rate_interval: '1m' };
  return expr.replace(/\$\{?(\w+)\}?/g, (_, name: string) => {
    if (values[name] === undefined) throw new Error(`${expr}: a variable the test does not know: ${name}`);
    return values[name];
  });
}

/** The metric names an expression selects, from its parse tree; throws on a syntax error. */
function metricsOf(expr: string): string[] {
  const text = substituted(expr);
  const names: string[] = [];
  const cursor = parser.parse(text).cursor();
  do {
    if (cursor.type.isError) throw new Error(`${expr}: not PromQL at ${cursor.from}: ${text.slice(cursor.from)}`);
    if (cursor.name === 'VectorSelector' && cursor.firstChild()) {
      // The cursor moved: its node is the selector's first child now.
      if ((cursor.name as string) === 'Identifier') names.push(text.slice(cursor.from, cursor.to));
      cursor.parent();
    }
  } while (cursor.next());
  if (names.length === 0 || text.includes('__name__')) throw new Error(`${expr}: no metric selected by name`);
  return names;
}

describe('deploy/grafana/loadproof.json', () => {
  it('reads a Prometheus data source chosen at import, and says the unit of every figure in its title', () => {
    const variables = dashboard.templating.list;
    expect(variables[0]).toMatchObject({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' });
    for (const panel of queried) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
      for (const t of panel.targets) expect(t.datasource, panel.title).toEqual(panel.datasource);
      expect(panel.title).toMatch(/\([^)]*\b(model|wall|count)\b[^)]*\)/);
    }
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    // The panels the issue asks for.
    const titles = queried.map((p) => p.title).join('\n');
    for (const what of ['Offered, sent and goodput', '429, 504', 'Latency p50 / p95 / p99', 'in flight', 'Send lag'])
      expect(titles).toContain(what);
    expect(exprs.filter((e) => e.includes('histogram_quantile'))).toHaveLength(6);
  });

  it('queries only metrics a run serves: a real run through the CLI, scraped', async () => {
    const wanted = new Set([
      ...exprs.flatMap(metricsOf),
      ...dashboard.templating.list
        .filter((v: any) => v.type === 'query')
        .map((v: any) => /^label_values\((\w+),/.exec(v.definition)![1]!),
    ]);
    expect(wanted).toContain('loadproof_request_latency_seconds_bucket');

    const { file, out } = scenarioWorkspace(
      'name: dashboard\ndescription: scraped for the dashboard\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: steady, duration: 1m, rpm: 120 }\n',
    );
    const cli = startCli(['run', '--no-charts', file, '--time-scale', '20', '--metrics-port', '0', '--out', out]);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      cli.child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        const m = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
        if (m !== null) resolve(m[1]!);
      });
      void cli.exited.then(() => reject(new Error(`the run ended without serving metrics: ${stderr}`)));
    });
    // Scrapes until a request has been answered (labelled series appear with their first sample), bounded.
    let served = new Set<string>();
    let text = '';
    for (let i = 0; i < 240 && !served.has('loadproof_responses_total'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      const scraped = await fetch(url).then(
        (r) => r.text(),
        () => undefined,
      );
      if (scraped === undefined) break;
      text = scraped;
      served = new Set(
        text
          .split('\n')
          .filter((line) => line !== '' && !line.startsWith('#'))
          .map((line) => /^[a-zA-Z_:][\w:]*/.exec(line)![0]),
      );
    }
    const { code } = await cli.exited;
    expect([0, 5], stderr).toContain(code);
    expect([...wanted].filter((name) => !served.has(name))).toEqual([]);
    // The figure the model-time rates are divided by.
    expect(text).toMatch(/^loadproof_time_scale 20$/m);
  });
});
