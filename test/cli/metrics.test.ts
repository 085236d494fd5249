/**
 * Live metrics: `run --metrics-port 0` through the real CLI, against the embedded mock, scraped
 * while the run lasts in both formats a Prometheus server may ask for. The Prometheus text is parsed by a
 * real parser from the registry (parse-prometheus-text-format); the OpenMetrics text is checked for its
 * own rules. What the scrapes say must agree with itself and with the run's summary.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import parse from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';

const scrape = async (url: string, accept?: string): Promise<{ type: string | null; text: string }> => {
  const res = await fetch(url, accept === undefined ? {} : { headers: { accept } });
  return { type: res.headers.get('content-type'), text: await res.text() };
};
const family = (families: ReturnType<typeof parse>, name: string) => {
  const f = families.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no ${name} in ${families.map((x) => x.name).join(', ')}`);
  return f;
};
const total = (f: ReturnType<typeof family>): number => f.metrics.reduce((n, m) => n + Number(m.value), 0);

describe('run --metrics-port', () => {
  it('serves the run as it goes, in the Prometheus text format and OpenMetrics, and agrees with summary.json', async () => {
    const { file, out } = scenarioWorkspace(
      'name: watched\ndescription: scraped\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: steady, duration: 1m, rpm: 120 }\n',
    );
    const cli = startCli(
      ['run', '--no-charts', file, '--time-scale', '20', '--metrics-port', '0', '--out', out],
      {},
      60_000,
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      cli.child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        const m = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
        if (m !== null) resolve(m[1]!);
      });
      void cli.exited.then(() => reject(new Error(`the run ended without serving metrics: ${stderr}`)));
    });
    // Scrapes until the run's load has started, then twice more as it goes.
    const scrapes: ReturnType<typeof parse>[] = [];
    let openMetrics = { type: null as string | null, text: '' };
    for (let i = 0; i < 200 && scrapes.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const prom = await scrape(url).catch(() => undefined);
      if (prom === undefined) break;
      expect(prom.type).toBe('text/plain; version=0.0.4; charset=utf-8');
      const parsed = parse(prom.text);
      if (total(family(parsed, 'loadproof_requests_total')) === 0 && scrapes.length === 0) continue;
      scrapes.push(parsed);
      openMetrics = await scrape(url, 'application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5');
    }
    const { code } = await cli.exited;
    expect([0, 5]).toContain(code);
    expect(scrapes.length).toBeGreaterThanOrEqual(2);

    for (const parsed of scrapes) {
      expect(family(parsed, 'loadproof_requests_total').type).toBe('COUNTER');
      expect(family(parsed, 'loadproof_requests_in_flight').type).toBe('GAUGE');
      expect(family(parsed, 'loadproof_run_info').metrics[0]!.labels).toEqual({
        scenario: 'watched',
        environment: 'mock',
        time_scale: '20',
        shard: '',
      });
      // Offered: the plan's 120 rpm; due ≥ known fates, the rest in flight.
      expect(Number(family(parsed, 'loadproof_offered_requests_per_minute').metrics[0]!.value)).toBe(120);
      const due = Number(family(parsed, 'loadproof_arrivals_due_total').metrics[0]!.value);
      const known = total(family(parsed, 'loadproof_requests_total'));
      expect(due - known).toBe(Number(family(parsed, 'loadproof_requests_in_flight').metrics[0]!.value));
      // Histograms: cumulative buckets, +Inf is the count, one observation per request the latency definition counts.
      const latency = family(parsed, 'loadproof_request_latency_seconds');
      expect(latency.type).toBe('HISTOGRAM');
      const h = latency.metrics[0]!;
      // In bound order (an object's integer-like keys come first whatever their place), counts only go up.
      const buckets = Object.entries(h.buckets!)
        .sort(([a], [b]) => (a === '+Inf' ? Infinity : Number(a)) - (b === '+Inf' ? Infinity : Number(b)))
        .map(([, v]) => Number(v));
      expect(buckets.length).toBe(17);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
      expect(Number(h.buckets!['+Inf'])).toBe(Number(h.count));
      // The latency definition's requests: all but the unsent and the 429s at once (each 429 is at once: no retries).
      const outcomes = family(parsed, 'loadproof_requests_total').metrics;
      const leftOut = outcomes
        .filter((m) => m.labels!.outcome === 'unsent' || m.labels!.outcome === 'http_429')
        .reduce((n, m) => n + Number(m.value), 0);
      expect(Number(h.count)).toBe(known - leftOut);
      expect(family(parsed, 'loadproof_send_lag_seconds').type).toBe('HISTOGRAM');
      // Goodput: the requests sent in the last model minute answered 2xx; the time scale that rate()s divide by.
      const gauge = (name: string): number => Number(family(parsed, name).metrics[0]!.value);
      expect(gauge('loadproof_goodput_requests_per_minute')).toBeLessThanOrEqual(
        gauge('loadproof_achieved_requests_per_minute'),
      );
      expect(gauge('loadproof_time_scale')).toBe(20);
    }
    // Counters only go up between scrapes.
    const counts = scrapes.map((p) => total(family(p, 'loadproof_requests_total')));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)!).toBeGreaterThan(counts[0]!);

    // OpenMetrics when asked for it: its content type, unit lines, counters named without _total, and # EOF.
    expect(openMetrics.type).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(openMetrics.text.endsWith('# EOF\n')).toBe(true);
    expect(openMetrics.text).toContain('# TYPE loadproof_requests counter\n');
    expect(openMetrics.text).toContain('# UNIT loadproof_request_latency_seconds seconds\n');
    expect(openMetrics.text).toMatch(/^loadproof_requests_total\{phase="steady",outcome="ok"\} \d+$/m);

    // The last scrape never counts more than the run's own summary.
    const [folder] = runFolders(out);
    const summary = JSON.parse(readFileSync(join(out, folder!, 'summary.json'), 'utf8'));
    expect(counts.at(-1)!).toBeLessThanOrEqual(summary.counts.planned);
    expect(
      Number(
        family(scrapes.at(-1)!, 'loadproof_responses_total').metrics.find((m) => m.labels!.status === '200')!.value,
      ),
    ).toBeLessThanOrEqual(summary.overall.outcomes.ok);
    // Gone with the run: nothing keeps listening.
    await expect(fetch(url)).rejects.toThrow();
  });

  it('refuses a port already in use with exit 2, before the run folder or any request', async () => {
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const { file, out } = scenarioWorkspace(
        'name: w\ndescription: d\ntarget: { environment: mock }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n',
      );
      const { code, stderr } = await runMain(['run', file, '--out', out, '--metrics-port', String(port)]);
      expect(code).toBe(2);
      expect(stderr).toContain(`--metrics-port ${port}: cannot listen on 127.0.0.1 (EADDRINUSE)`);
      expect((await import('node:fs')).existsSync(out)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it.each([
    ['a port out of range', ['--metrics-port', '70000'], '--metrics-port: expected a port from 0 to 65535, got 70000'],
    ['a port without its value', ['--metrics-port'], 'Not enough arguments following: metrics-port'],
  ])('refuses %s with exit 2 and sends nothing', async (_what, args, message) => {
    const { file, out } = scenarioWorkspace(
      'name: w\ndescription: d\ntarget: { environment: mock }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n',
    );
    const { code, stderr } = await runMain(['run', file, '--out', out, ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});
