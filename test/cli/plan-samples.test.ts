/**
 * `plan` warns when a percentile threshold will have too few samples to be decided: the phase, the threshold, the
 * sample it will have and the count it needs. Scenarios just under and just over the count, for requests and, in
 * mode deid, documents.
 */
import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';

const scenario = (phase: string, threshold: string, extra = ''): string =>
  `name: samples\ndescription: d\ntarget: { environment: mock }\n${extra}phases: [${phase}]\nthresholds: { all: ['${threshold}'] }\n`;

async function notesOf(text: string): Promise<string> {
  const { file } = scenarioWorkspace(text);
  const { code, stdout, stderr } = await runMain(['plan', file]);
  expect(code, stderr).toBe(0);
  return stdout;
}

describe('plan: too few samples for a percentile threshold', () => {
  it('p(99) on 367 requests after the warm-up: named, with n and the 368 needed; on 368, nothing', async () => {
    const under = await notesOf(scenario('{ name: steady, duration: 377s, rpm: 60, warmup: 10s }', 'p(99) < 8s'));
    expect(under).toContain(
      'phase steady: threshold "p(99) < 8s" will have at most 367 requests after the warm-up, fewer than the 368 its p(99) needs to be decided: it can fail but not pass',
    );
    const over = await notesOf(scenario('{ name: steady, duration: 378s, rpm: 60, warmup: 10s }', 'p(99) < 8s'));
    expect(over).not.toContain('p(99) < 8s" will have');
  });

  it('mode deid, document.p(95) on 71 documents: named, with the 72 needed; on 72, nothing', async () => {
    const deid = 'mode: deid\n';
    const under = await notesOf(scenario('{ name: docs, duration: 71s, rpm: 60 }', 'document.p(95) < 8s', deid));
    expect(under).toContain(
      'phase docs: threshold "document.p(95) < 8s" will have at most 71 documents after the warm-up, fewer than the 72 its p(95) needs to be decided: it can fail but not pass',
    );
    const over = await notesOf(scenario('{ name: docs, duration: 72s, rpm: 60 }', 'document.p(95) < 8s', deid));
    expect(over).not.toContain('document.p(95) < 8s" will have');
  });

  it('a lower bound claim (p(50) > 100ms) on 5 requests: it can only be inconclusive; --json carries the note too', async () => {
    const { file } = scenarioWorkspace(scenario('{ name: tiny, duration: 5s, rpm: 60 }', 'p(50) > 100ms'));
    const { stdout } = await runMain(['plan', file, '--json']);
    expect(JSON.parse(stdout).notes).toContain(
      'phase tiny: threshold "p(50) > 100ms" will have at most 5 requests after the warm-up, fewer than the 6 its p(50) needs to be decided: it can only be inconclusive (lengthen the phase, raise its rate or shorten its warm-up)',
    );
  });
});
