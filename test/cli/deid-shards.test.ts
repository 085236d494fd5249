/**
 * A sharded `mode: deid` run, end to end: the same small deid scenario run as one process and as 2 shards (whole
 * documents each, one --start-at), against the embedded mock's own server on loopback, then `loadproof merge`. The
 * merged folder must count what the one process counted — documents by outcome, pieces, identification requests,
 * entities (the mock's detector is deterministic) — and keep the payload record.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';
import { commonStartBudgetMs, LATE_START, refusedAsLate, withCommonStart } from '../helpers/start-at.js';

// k = 5: at k = 20 beside two CPU hogs the 1.8 s wall deadline (16 s ÷ 20 + 1 s) timed pieces out, the tool's doing.
const K = 5;
const N = 2;
const { mock } = serversFor(K);
/** Exit codes of a judged run: pass (0), inconclusive (5). */
const VERDICTS = [0, 5];

const scenarioAt = (url: string): string =>
  [
    'name: deid-sharded',
    'description: a small deid plan, in one process and in 2 shards',
    `target: { environment: mock, baseUrl: "${url}" }`,
    'mode: deid',
    'deid: { concurrency: 2, style: tag }',
    'payload:',
    '  lengths: { short: 1, typical: 2, long: 1 }',
    '  seed: 11',
    '  split: { margin: 0.3 }',
    'phases:',
    '  - { name: steady, duration: 40s, rpm: 30 }',
    '',
  ].join('\n');
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const lines = (path: string): any[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** What the one process and the merge must agree on, read from a run folder. */
function counts(folder: string) {
  const summary = readJson(join(folder, 'summary.json'));
  const documents = lines(join(folder, 'documents.ndjson'));
  const byOutcome: Record<string, number> = {};
  for (const d of documents) byOutcome[d.outcome] = (byOutcome[d.outcome] ?? 0) + 1;
  return {
    documents: documents.map((d) => d.doc),
    byOutcome,
    pieces: documents.reduce((n, d) => n + d.pieces, 0),
    entities: documents.reduce((n, d) => n + d.entities, 0),
    entitiesByDoc: [...documents].sort((a, b) => a.doc - b.doc).map((d) => d.entities),
    requests: summary.counts.planned,
    sent: summary.overall.sent,
    deid: { ...summary.deid.overall, documentLatencyMs: undefined, identification: undefined, obfuscation: undefined },
    identificationStage: summary.deid.overall.identification.latencyMs.count,
    obfuscationCalls: summary.deid.overall.obfuscation.calls,
    // PHI recall (when the run has ground truth): the merge recomputes it from the merged documents' lines.
    phi: summary.phi ?? null,
    texts: summary.payload?.texts,
    documentsDrawn: summary.payload?.documents,
    splitDocuments: summary.payload?.splitDocuments,
  };
}

describe('a sharded mode deid run', () => {
  const LEAD_MS = 8000;
  it(
    'merges 2 shards of whole documents to the counts of one process, its payload record kept',
    { timeout: commonStartBudgetMs(LEAD_MS, 30_000) + 30_000 },
    async () => {
      const single = await mock();
      const one = scenarioWorkspace(scenarioAt(single.url));
      const alone = await runMain(['run', '--no-charts', one.file, '--time-scale', String(K), '--out', one.out]);
      // A verdict (pass, or inconclusive on so few samples), not a failure to run.
      expect(VERDICTS, alone.stderr).toContain(alone.code);
      const oneFolder = join(one.out, runFolders(one.out)[0]!);

      const { dir, out, s } = await withCommonStart(LEAD_MS, async (startAtMs) => {
        const s = await mock();
        const { dir, file, out } = scenarioWorkspace(scenarioAt(s.url));
        const startAt = new Date(startAtMs).toISOString();
        const shards = Array.from({ length: N }, (_, i) =>
          startCli(
            [
              'run',
              '--no-charts',
              file,
              '--shard',
              `${i}/${N}`,
              '--start-at',
              startAt,
              '--time-scale',
              String(K),
              '--out',
              out,
            ],
            {},
            60_000,
          ),
        );
        const ended = await Promise.all(shards.map((p) => p.exited));
        if (ended.some((e) => refusedAsLate(e.code, e.stderr))) return LATE_START;
        for (const e of ended) expect(e.code, e.stderr).toBe(0);
        expect(ended[1]!.stderr).toContain(
          '(shard 1/2: every 2nd document of the plan, from document 1, all of its pieces)',
        );
        return { dir, out, s };
      });
      const folders = runFolders(out).map((f) => join(out, f));
      expect(folders).toHaveLength(N);
      const whole = readJson(join(oneFolder, 'summary.json')).deid.overall.planned;
      for (const folder of folders) {
        const run = readJson(join(folder, 'run.json'));
        const docs = lines(join(folder, 'documents.ndjson'));
        // Whole documents: shard i sends the documents d ≡ i (mod n), every piece of each, seqs of the whole plan.
        expect(docs.every((d) => d.doc % N === run.shard.index)).toBe(true);
        expect(docs).toHaveLength(Math.ceil((whole - run.shard.index) / N));
        // Its own summary plans its own documents, not the whole plan's.
        const own = readJson(join(folder, 'summary.json'));
        expect(own.deid.overall.planned).toBe(docs.length);
        expect(own.payload.documents).toBe(docs.length);
        const seqs = new Set(lines(join(folder, 'events.ndjson')).map((e) => e.seq));
        for (const d of docs) for (let p = 0; p < d.pieces; p++) expect(seqs.has(d.firstSeq + p)).toBe(true);
        expect(seqs.size).toBe(docs.reduce((n, d) => n + d.pieces, 0));
        // The shard's report and brief say what it sent: whole documents, not every n-th request.
        const share = `the documents d ≡ ${run.shard.index} (mod ${N}), each with every one of its pieces`;
        expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain(
          `| Shard | ${run.shard.index} of ${N}: ${share}`,
        );
        const brief = readFileSync(join(folder, 'brief.md'), 'utf8');
        expect(brief).toContain(`it sent ${share}`);
        // Its seqs are the whole plan's: no range bounded by its own count.
        expect(brief).toContain(
          "`x-loadproof-seq: <n>`, its number in the plan (the whole plan's, as events.ndjson lists them)",
        );
      }

      const merged = await runMain(['merge', '--no-charts', ...folders.reverse(), '--out', join(dir, 'merged')]);
      expect(VERDICTS, merged.stderr).toContain(merged.code);
      const mergedDir = join(dir, 'merged', runFolders(join(dir, 'merged'))[0]!);
      const m = counts(mergedDir);
      const o = counts(oneFolder);
      // Document order, every document once.
      expect(m.documents).toEqual(Array.from({ length: whole }, (_, d) => d));
      expect(o.byOutcome).toEqual({ ok: whole });
      expect({ ...m, documents: undefined }).toEqual({ ...o, documents: undefined });
      expect(m.entities).toBeGreaterThan(0);
      // The mock saw every piece once, and one obfuscation call per document.
      const seen = s.stats().requests;
      expect(seen.identification.received).toBe(m.sent);
      // Each shard made its own token call: the guard counted n for n shards, the merge measured n, as the mock saw.
      const mergedSummary = readJson(join(mergedDir, 'summary.json'));
      expect(seen.token.received).toBe(N);
      expect(mergedSummary.token.calls).toBe(N);
      expect(mergedSummary.guard.traffic.tokenCalls).toBe(N);
      expect(readJson(join(oneFolder, 'summary.json')).guard.traffic.tokenCalls).toBe(1);
      expect(m.texts).toBe(m.sent);
      // The payload record is kept: the merged report says what was sent.
      const report = readFileSync(join(mergedDir, 'report.md'), 'utf8');
      expect(report).not.toContain('not recorded');
      expect(report).toContain(`${m.texts} texts`);
      // The identification stage's own percentiles, beside end to end, for every document that went through.
      expect(m.identificationStage).toBe(whole);
      expect(report).toMatch(/\| Unsent \| Identification p50 \| p95 \| p99 \| End to end p50 \|/);
      expect((await runMain(['verify', mergedDir])).code).toBe(0);
    },
  );
});
