/**
 * A scenario that steps the rate up gets a capacity section, a latency-against-rate chart and
 * a limit-increase brief, from the summary alone. Against the tight mock (30 rpm sustained, 60 for two
 * minutes) three steps of 30, 60 and 120 rpm meet 429s.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

describe('capacity, and the brief quoting it', () => {
  it('a stepping run: each step against its target, the highest rate held, the 429 onset, the chart and the brief', async () => {
    const ws = scenarioWorkspace(
      'name: steps\ndescription: three steps up\nphases:\n  - { name: step-30, duration: 1m, rpm: 30, warmup: 10s }\n  - { name: step-60, duration: 1m, rpm: 60, warmup: 10s }\n  - { name: step-120, duration: 1m, rpm: 120, warmup: 10s }\n',
    );
    const run = await runMain([
      'run',
      ws.file,
      '--time-scale',
      '60',
      '--mock-profile',
      'tight',
      '--capacity-429-share',
      '0.25',
      '--out',
      ws.out,
    ]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    const capacity = md.slice(md.indexOf('## Capacity'), md.indexOf('## Safety'));
    for (const p of summary.phases)
      expect(capacity).toMatch(new RegExp(`^\\| ${p.name} \\| ${p.offeredRpm} \\| `, 'm'));
    // The headline: the highest rate served within its target, at most the chosen share of its requests refused.
    const c = summary.capacity;
    expect(c.max429Share).toBe(0.25);
    expect(JSON.parse(readFileSync(join(folder, 'run.json'), 'utf8')).capacity429Share).toBe(0.25);
    expect(capacity).toContain(
      c.highestServedRpm === null
        ? 'No step was served within its target'
        : `The highest rate served within its target: ${c.highestServedRpm} requests a minute (${c.highestServedPhase})`,
    );
    if (c.highestServedRpm !== null) expect(capacity).toContain('at most 25 % of its requests refused with a 429');
    for (const p of summary.phases.filter((q: any) => q.outcomes.http_429 / q.sent > 0.25))
      expect(c.highestServedRpm ?? 0).not.toBe(p.toRpm);
    const onset = summary.timeline.find(
      (w: any) => w.answers429.rateLimit + w.answers429.inFlight + w.answers429.other > 0,
    );
    expect(onset).toBeDefined();
    expect(capacity).toContain(`window it came in, the offered rate was ${onset.offeredRpm} requests a minute`);
    expect(capacity).toContain(`The first 429 came at ${summary.first429.atS.toFixed(1)} s (model time`);
    expect(existsSync(join(folder, 'charts', 'latency-vs-rate.png'))).toBe(true);
    expect(md).toContain(
      '![Latency against the offered rate (each step, steady state, 429s answered at once left out)](charts/latency-vs-rate.png)',
    );
    // The brief is its own file (test/cli/brief.test.ts): it says a mock run is no evidence about the service, names
    // the run, and quotes the capacity lines.
    const brief = readFileSync(join(folder, 'brief.md'), 'utf8');
    expect(brief).toContain('not the service: this brief shows the form only, and is no evidence about the service');
    expect(brief).toContain(`plan \`${summary.planIdentity}\``);
    // The capacity lines as a list, one a bullet, in the capacity section's order.
    const bullets = (text: string): string[] =>
      text
        .split('\n')
        .filter((l) => l.startsWith('- '))
        .map((l) => l.slice(2));
    const steps = brief.slice(brief.indexOf('What the steps showed:'), brief.indexOf('## What was tested'));
    expect(steps.split('\n')[0]).toBe('What the steps showed:');
    expect(bullets(steps)).toEqual(bullets(capacity));
    // The first 429 at its own time, as the capacity section and the evidence say it, with its wall time.
    const refusals = brief.slice(brief.indexOf('## 429 and 504 answers'));
    const wall = new Date(Date.parse(summary.startedAt) + (summary.first429.atS * 1000) / 60)
      .toISOString()
      .slice(11, 19);
    expect(refusals).toContain(
      `The first 429 came at ${summary.first429.atS.toFixed(1)} s of model time (${wall} UTC, wall time), in ${summary.first429.phase}`,
    );
    expect(md).toContain(`The first 429 came at ${summary.first429.atS.toFixed(1)} s (model time) into the run`);
  });

  it('the terminal: the capacity headline and plateau after the table; late phases folded in one note, each with --verbose', async () => {
    const ws = scenarioWorkspace(
      'name: steps\ndescription: three steps up\nphases:\n  - { name: step-60, duration: 1m, rpm: 60 }\n  - { name: step-120, duration: 1m, rpm: 120 }\n  - { name: step-180, duration: 1m, rpm: 180 }\n',
    );
    const run = await runMain(['run', ws.file, '--time-scale', '60', '--out', ws.out]);
    expect([0, 5], run.stderr).toContain(run.code);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    const headline = md.split('\n').find((l) => l.startsWith('- The highest rate served') || l.startsWith('- No step'));
    expect(headline).toBeDefined();
    const lines = run.stdout.split('\n');
    const overall = lines.findIndex((l) => l.trimStart().startsWith('overall'));
    const verdict = lines.findIndex((l) => l.startsWith('verdict:'));
    const at = lines.indexOf(`capacity: ${headline!.slice(2)}`);
    expect(at, run.stdout).toBeGreaterThan(overall);
    expect(at).toBeLessThan(verdict);

    // The judge's notes on late phases, as a busy machine makes them: one line, each phase only with --verbose.
    const { formatSummary } = (await import(
      new URL('../../dist/run/index.js', import.meta.url).href
    )) as typeof import('../../src/run/index.js');
    const late = summary.phases.map(
      (p: any) =>
        `phase ${p.name}: the generator was late (send lag p99 60ms over the generator's budget of 50ms, 1 % of the target, model time): lateness only inflates latency`,
    );
    const busy = { ...summary, verdict: { ...summary.verdict, notes: [...late, 'another note'] } };
    const folded = formatSummary(busy, null).split('\n');
    expect(folded.filter((l: string) => l.includes('the generator was late'))).toEqual([]);
    expect(folded.filter((l: string) => l.includes('note:'))).toEqual([
      '  note: The generator fell behind its own schedule in 3 phases (step-60, step-120, step-180): results its lateness could have caused were checked again on service time or made inconclusive, never counted as a finding. Each phase: report.md, or run --verbose.',
      '  note: another note',
    ]);
    const verbose = formatSummary(busy, null, summary.exitCode, true);
    for (const note of late) expect(verbose).toContain(`\n    ${note}\n`);
  });

  it('run --capacity-429-share out of 0..1: exit 2 naming the flag, the value and what is expected; nothing sent', async () => {
    const ws = scenarioWorkspace(
      'name: flat\ndescription: one rate\nphases:\n  - { name: a, duration: 30s, rpm: 60 }\n',
    );
    const run = await runMain(['run', ws.file, '--time-scale', '60', '--capacity-429-share', '2', '--out', ws.out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--capacity-429-share: expected a fraction from 0 to 1');
    expect(run.stderr).toContain('got "2"');
    expect(existsSync(ws.out)).toBe(false);
  });

  it('a run that does not step the rate up has neither', async () => {
    const ws = scenarioWorkspace(
      'name: flat\ndescription: one rate\nphases:\n  - { name: a, duration: 30s, rpm: 60 }\n  - { name: b, duration: 30s, rpm: 120 }\n',
    );
    await runMain(['run', ws.file, '--time-scale', '60', '--out', ws.out]);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(md).not.toContain('## Capacity');
    expect(md).not.toContain('## Limit-increase brief');
    expect(readFileSync(join(folder, 'brief.md'), 'utf8')).not.toContain('What the steps showed');
    expect(existsSync(join(folder, 'charts', 'latency-vs-rate.png'))).toBe(false);
    expect(existsSync(join(folder, 'charts', 'goodput-vs-offered.png'))).toBe(false);
  });
});
