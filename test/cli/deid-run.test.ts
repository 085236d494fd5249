/**
 * A deid run through the CLI against a real mock — documents split, pieces identified,
 * documents obfuscated — with per-stage counts that reconcile with what the mock saw, obfuscation's
 * 429s counted apart from the identification SLA, pieces in order when asked, and a folder that
 * judges the same again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { expectSameWhenJudgedAgain } from '../helpers/rejudge.js';

// k = 5: at k = 20 beside two CPU hogs the 1.8 s wall deadline (16 s ÷ 20 + 1 s) timed pieces out, the tool's doing.
const K = 5;
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const scenario = (url: string, extra = ''): string =>
  `name: deid-run\ndescription: the chain\nmode: deid\ntarget: { environment: mock, baseUrl: "${url}" }\npayload: { lengths: { typical: 2, long: 1 }, seed: 5 }\nphases:\n  - { name: steady, duration: 1m, rpm: 30 }\n${extra}`;

const lines = (file: string): any[] =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

async function deidRun(
  options: MockServerOptions,
  extra = '',
): Promise<{ code: number; stdout: string; folder: string; summary: any; documents: any[]; events: any[] }> {
  server = await startMockServer({ timeScale: K, ...options });
  const ws = scenarioWorkspace(scenario(server.url, extra));
  const { code, stdout } = await runMain(['run', '--no-charts', ws.file, '--time-scale', String(K), '--out', ws.out]);
  const folder = join(ws.out, runFolders(ws.out)[0]!);
  await expectSameWhenJudgedAgain(folder);
  return {
    code,
    stdout,
    folder,
    summary: JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8')),
    documents: lines(join(folder, 'documents.ndjson')),
    events: lines(join(folder, 'events.ndjson')),
  };
}

describe('run, mode deid', () => {
  it('sends every piece and every document, its counts per stage reconcile with the mock, and thresholds that name a stage judge that stage', async () => {
    const { code, stdout, folder, summary, documents, events } = await deidRun(
      {},
      'thresholds:\n  all:\n    - document.p(50) < 1ms\n    - document.rate(errors) == 0\n    - obfuscation.count(429) == 0\n    - obfuscation.p(50) < 10s\n',
    );
    // The one failing check is the document threshold set to fail.
    expect(code).toBe(1);
    const check = (what: string) => summary.verdict.checks.find((c: any) => c.what === what);
    // No document goes end to end in a millisecond: a fail on the documents' own latencies, not identification's.
    expect(check('document.p(50) < 1ms')).toMatchObject({ status: 'fail' });
    expect(check('document.p(50) < 1ms').observed).toBeGreaterThan(summary.phases[0].steadyLatencyMs.p50 - 1);
    expect(check('document.rate(errors) == 0')).toMatchObject({
      status: 'pass',
      reason: expect.stringMatching(/^0 of \d+ documents/),
    });
    expect(check('obfuscation.count(429) == 0')).toMatchObject({ status: 'pass', observed: 0 });
    expect(check('obfuscation.p(50) < 10s')).toMatchObject({ status: 'pass' });
    expect(summary.verdict.reasons).toEqual([expect.stringContaining('document.p(50) < 1ms')]);
    const seen = server!.stats().requests;
    const d = summary.deid.overall;
    expect(d).toMatchObject({
      planned: 30,
      documents: 30,
      ok: 30,
      failed: { identification: 0, obfuscation: 0 },
      unsent: 0,
    });
    expect(documents).toHaveLength(30);
    // Identification: one event per piece, each seen by the mock; obfuscation: one call per document.
    expect(summary.counts.sent).toBe(events.length);
    expect(events.length).toBe(documents.reduce((n, doc) => n + doc.pieces, 0));
    expect(events.length).toBeGreaterThan(30);
    expect(seen.identification.received).toBe(summary.counts.sent);
    expect(seen.obfuscation.received).toBe(d.obfuscation.calls);
    expect(d.obfuscation.calls).toBe(30);
    for (const doc of documents) {
      expect(doc.entities).toBeGreaterThan(0);
      expect(doc.latencyMs).toBeGreaterThanOrEqual(doc.identification.latencyMs);
    }
    expect(stdout).toMatch(/de-identification chain: each document split/);
    // Per window (10 s by default), by intended time: every document once.
    expect(summary.deid.timeline.length).toBe(6);
    expect(summary.deid.timeline.reduce((n: number, w: any) => n + w.documents, 0)).toBe(30);
    expect(summary.deid.timeline.every((w: any) => w.documents === w.ok && w.documentLatencyMs.p95 !== null)).toBe(
      true,
    );
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(md).toMatch(
      /## De-identification chain\n\nEach document was split .*\n\n\| Phase \| Docs\/min \| Documents \|/,
    );
    expect(md).toMatch(/\| overall \| +\| 30 \| 30 \| 0 \| 0 \| 0 \|/);
  });

  it("counts obfuscation's 429s apart: documents fail at obfuscation, and the identification verdict does not move", async () => {
    const { summary, documents } = await deidRun({
      obfuscationLimits: { sustainedRpm: 5, burstRpm: 10, burstMinutes: 1 },
    });
    const d = summary.deid.overall;
    expect(d.failed.obfuscation).toBeGreaterThan(0);
    expect(d.obfuscation.outcomes.http_429).toBe(d.failed.obfuscation);
    expect(d.failed.identification).toBe(0);
    expect(
      documents.filter((doc) => doc.failedStage === 'obfuscation').every((doc) => doc.obfuscation.status === 429),
    ).toBe(true);
    // The identification requests saw no 429, and the verdict's checks are about them alone.
    expect(summary.overall.outcomes.http_429).toBe(0);
    expect(summary.verdict.checks.every((c: any) => c.status !== 'fail')).toBe(true);
  });

  it("sends a document's pieces one after another with concurrency 1, each intended when the one before answered; a damaged documents.ndjson is not judged again", async () => {
    const { folder, documents, events } = await deidRun({}, 'deid: { concurrency: 1 }\n');
    const split = documents.filter((doc) => doc.pieces > 1);
    expect(split.length).toBeGreaterThan(0);
    for (const doc of split) {
      const pieces = events
        .filter((e) => e.seq >= doc.firstSeq && e.seq < doc.firstSeq + doc.pieces)
        .sort((a, b) => a.seq - b.seq);
      // Judged where the plan put them (the document's time); latency and send lag from when each was free to go.
      for (const p of pieces) expect(p.intendedAtMs).toBe(doc.intendedAtMs);
      for (let i = 1; i < pieces.length; i++) expect(pieces[i].readyAtMs).toBeGreaterThanOrEqual(pieces[i - 1].endAtMs);
    }
    // Each planned document once, all of them in a finished run: a line twice, or missing, is refused.
    const path = join(folder, 'documents.ndjson');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    writeFileSync(path, `${[lines[0], ...lines].join('\n')}\n`);
    const twice = await runMain(['report', folder]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('line 2: doc 0 appears twice');
    // Streamed, never gathered whole first (a huge file must not be held in memory): the first bad line ends the read,
    // whatever follows it.
    writeFileSync(path, `${[lines[0], lines[0], 'x'.repeat(64 * 1024 + 1), ...lines.slice(1)].join('\n')}\n`);
    const streamed = await runMain(['report', folder]);
    expect(streamed.code).toBe(2);
    expect(streamed.stderr).toContain('line 2: doc 0 appears twice');
    const bad = JSON.parse(lines[1]!);
    bad.latencyMs = 'x';
    writeFileSync(path, `${[lines[0], JSON.stringify(bad), ...lines.slice(2)].join('\n')}\n`);
    const damaged = await runMain(['report', folder]);
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain('documents.ndjson line 2: latencyMs: expected a number or null');
    writeFileSync(path, `${lines.slice(1).join('\n')}\n`);
    const missing = await runMain(['report', folder]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `${lines.length - 1} lines for the ${lines.length} planned documents of a finished run`,
    );
  });

  it('drops whole documents at maxInFlight, never a piece held back behind its own document, and says the client dropped them', async () => {
    const { summary, documents, events } = await deidRun({}, 'deid: { concurrency: 1 }\nmaxInFlight: 1\n');
    const dropped = documents.filter((doc) => doc.outcome === 'dropped');
    expect(dropped.length).toBeGreaterThan(0);
    for (const doc of documents) {
      const outcomes = events
        .filter((e) => e.seq >= doc.firstSeq && e.seq < doc.firstSeq + doc.pieces)
        .map((e) => e.outcome);
      // All of a document's pieces, or none of them.
      expect(
        outcomes.every((o) => o === 'dropped') || outcomes.every((o) => o !== 'dropped'),
        JSON.stringify(outcomes),
      ).toBe(true);
      if (doc.outcome === 'dropped') expect(doc.failedStage).toBeNull();
    }
    expect(summary.deid.overall.dropped).toBe(dropped.length);
    expect(summary.deid.overall.failed.identification).toBe(0);
  });
});
