/**
 * Sharded runs and their merge (issue 14), end to end: n real CLI processes started as a Kubernetes
 * Indexed Job starts its pods — JOB_COMPLETION_INDEX in the environment, `--shard $(JOB_COMPLETION_INDEX)/n`
 * expanded from it, one --start-at for all — against one mock on loopback, then `loadproof merge`. The
 * merged counts must equal what the mock saw, and the merged judgement must equal one process's judgement
 * of the same events (the shards' lines in one folder of the whole plan, judged by `loadproof report`).
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain, scenarioWorkspace, runFolders, startCli } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const N = 3;
const { mock } = serversFor(K);

const scenarioAt = (url: string, phases: string, environment = 'mock', extra = ''): string =>
  `name: sharded\ndescription: one plan in ${N} shards\ntarget: { environment: ${environment}, baseUrl: "${url}" }\nphases:\n${phases}${extra}`;
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const lines = (path: string): any[] => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

/** Starts shard JOB_COMPLETION_INDEX of `count` as the Job's pod would: the index from its environment, expanded into the args. */
function startShard(index: number, count: number, args: readonly string[]) {
  const env = { JOB_COMPLETION_INDEX: String(index) };
  // Kubernetes expands $(VAR) in a container's args from its environment; so does this.
  const expanded = args.map((a) => a.replace(/\$\(JOB_COMPLETION_INDEX\)/g, env.JOB_COMPLETION_INDEX).replace(/\$\(SHARDS\)/g, String(count)));
  return startCli(expanded, env, 60_000);
}

describe('sharded runs and loadproof merge', () => {
  it(`${N} shards started together against one mock merge into the whole plan: counts equal the mock's, and the judgement equals one process's over the same events`, async () => {
    const s = await mock({ profile: 'zero' });
    const { dir, file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 45s, rpm: 160 }\n  - { name: after, duration: 15s, rpm: 60 }\n'));
    // Time for n processes to start on a busy machine: a shard more than 1 s late to its start is refused.
    const startAt = new Date(Date.now() + 5000).toISOString();
    const shards = Array.from({ length: N }, (_, i) => startShard(i, N, ['run', '--no-charts', file, '--shard', '$(JOB_COMPLETION_INDEX)/$(SHARDS)', '--start-at', startAt, '--time-scale', String(K), '--out', out]));
    const ended = await Promise.all(shards.map((p) => p.exited));
    for (const e of ended) expect(e.code, e.stderr).toBe(0);
    const folders = runFolders(out).map((f) => join(out, f));
    expect(folders).toHaveLength(N);
    const whole = 120 + 15;
    const seqs = new Set<number>();
    for (const folder of folders) {
      const run = readJson(join(folder, 'run.json'));
      expect(run.startAt).toBe(startAt);
      expect(run.planIdentity).toBe(readJson(join(folders[0]!, 'run.json')).planIdentity);
      const events = lines(join(folder, 'events.ndjson'));
      // Shard i holds the arrivals whose seq ≡ i (mod n), with their seqs in the whole plan.
      expect(events.every((e) => e.seq % N === run.shard.index)).toBe(true);
      expect(events.length).toBe(Math.ceil((whole - run.shard.index) / N));
      for (const e of events) seqs.add(e.seq);
      expect(readJson(join(folder, 'summary.json')).shard).toEqual({ index: run.shard.index, count: N });
    }
    expect(seqs.size).toBe(whole);

    const merged = await runMain(['merge', '--no-charts', ...[...folders].reverse(), '--out', join(dir, 'merged')]);
    // Pass, or inconclusive where a phase has too few answers to bound its p95: the same either way for one process below.
    expect([0, 5], merged.stderr).toContain(merged.code);
    expect(merged.stdout).toContain(`merged from ${N} shards`);
    const [mergedFolder] = runFolders(join(dir, 'merged'));
    const mergedDir = join(dir, 'merged', mergedFolder!);
    const summary = readJson(join(mergedDir, 'summary.json'));
    // Counts add exactly, and reconcile with what the one mock saw.
    const seen = s.stats().requests.identification;
    expect(summary.counts).toMatchObject({ planned: whole, unrecorded: 0 });
    expect(summary.overall.sent).toBe(seen.received);
    expect(summary.overall.outcomes.ok).toBe(seen.byStatus['200'] ?? 0);
    expect(summary.token.calls).toBe(s.stats().requests.token.received);
    expect(summary.mergedFrom.map((m: any) => m.index)).toEqual([0, 1, 2]);
    expect((await runMain(['verify', mergedDir])).code).toBe(0);

    // One process's judgement of the same events: the shards' lines in a folder of the whole plan.
    const single = join(mkdtempSync(join(tmpdir(), 'loadproof-single-')), 'run');
    cpSync(folders[0]!, single, { recursive: true });
    const run = readJson(join(single, 'run.json'));
    delete run.shard;
    writeFileSync(join(single, 'run.json'), JSON.stringify({ ...run, end: readJson(join(mergedDir, 'run.json')).end }));
    writeFileSync(join(single, 'events.ndjson'), folders.map((f) => readFileSync(join(f, 'events.ndjson'), 'utf8')).join(''));
    expect((await runMain(['report', '--no-charts', single])).code).toBe(merged.code);
    const alone = readJson(join(single, 'summary.json'));
    expect(alone.phases).toEqual(summary.phases);
    expect(alone.overall).toEqual(summary.overall);
    expect(alone.verdict).toEqual(summary.verdict);
    expect(alone.timeline).toEqual(summary.timeline);
  });

  describe('merge refuses what is not every shard of one plan (exit 2), writing nothing', () => {
    const shardsOf = async (scenario: string, count: number, indices: readonly number[]): Promise<string[]> => {
      const { file, out } = scenarioWorkspace(scenario);
      for (const i of indices) expect((await runMain(['run', '--no-charts', file, '--shard', `${i}/${count}`, '--time-scale', String(K), '--out', out])).code).toBe(0);
      return runFolders(out).map((f) => join(out, f));
    };

    it('a missing shard, a shard given twice, shards of different plans, a folder that is not a shard', async () => {
      const s = await mock({ profile: 'zero' });
      const [a0, a1] = await shardsOf(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'), 3, [0, 1]);
      const [b2] = await shardsOf(scenarioAt(s.url, '  - { name: steady, duration: 12s, rpm: 60 }\n'), 3, [2]);
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
      expect([0, 5]).toContain((await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out])).code);
      const whole = join(out, runFolders(out)[0]!);
      const target = mkdtempSync(join(tmpdir(), 'loadproof-merge-'));
      const cases: [string[], string][] = [
        [[a0!, a1!], '1 of 3 shards missing: 2/3 (given: 0, 1)'],
        [[a0!, a1!, a1!], 'shard 1/3 given twice'],
        [[a0!, a1!, b2!], 'shards of different plans'],
        [[a0!, whole], 'not a shard (its run.json has no shard'],
      ];
      for (const [dirs, message] of cases) {
        const { code, stderr } = await runMain(['merge', ...dirs, '--out', target]);
        expect(code, stderr).toBe(2);
        expect(stderr).toContain(message);
      }
      expect(readdirSync(target)).toEqual([]);
    });
  });

  describe('a shard is refused what the whole plan would be (exit 3 or 2), and sends nothing', () => {
    it('a plan whose whole peaks above the spec, split so that each shard looks harmless', async () => {
      const s = await mock();
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: too-much, duration: 2m, rpm: 400 }\n', 'sandbox', 'notice: { announcedOn: 2026-01-01, reference: SUP-1 }\n'));
      const { code, stderr } = await runMain(['run', file, '--shard', '0/4', '--allow-loopback-as-real', '--out', out], { LOADPROOF_CLIENT_ID: s.clientId, LOADPROOF_CLIENT_SECRET: s.clientSecret });
      expect(code).toBe(3);
      expect(stderr).toMatch(/it peaks at 400 rpm/);
      expect(s.stats().requests.token.received).toBe(0);
    });

    it.each([
      ['a shard index not below the count', ['--shard', '3/3'], '--shard: expected i/n with 0 ≤ i < n ≤ 1000'],
      ['a start more than a second past', ['--shard', '0/2', '--start-at', '2020-01-01T00:00:00Z'], '--start-at 2020-01-01T00:00:00.000Z:'],
      ['a start without a zone', ['--start-at', '2030-01-01T00:00:00'], '--start-at: expected an ISO date-time with a zone'],
    ])('%s', async (_what, args, message) => {
      const s = await mock();
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
      const { code, stderr } = await runMain(['run', file, ...args, '--out', out]);
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(s.stats().requests.token.received).toBe(0);
    });
  });
});
