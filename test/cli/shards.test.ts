/**
 * Sharded runs and their merge, end to end: n real CLI processes started as a Kubernetes
 * Indexed Job starts its pods — JOB_COMPLETION_INDEX in the environment, `--shard $(JOB_COMPLETION_INDEX)/n`
 * expanded from it, one --start-at for all — against one mock on loopback, then `loadproof merge`. The
 * merged counts must equal what the mock saw, and the merged judgement must equal one process's judgement
 * of the same events (the shards' lines in one folder of the whole plan, judged by `loadproof report`).
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';
import { commonStartBudgetMs, LATE_START, refusedAsLate, withCommonStart } from '../helpers/start-at.js';
import { tokenAnswer } from '../helpers/stub.js';

const K = 20;
const N = 3;
const { mock, stub } = serversFor(K);

const scenarioAt = (url: string, phases: string, environment = 'mock', extra = ''): string =>
  `name: sharded\ndescription: one plan in ${N} shards\ntarget: { environment: ${environment}, baseUrl: "${url}" }\nphases:\n${phases}${extra}`;
const readJson = (path: string): any => JSON.parse(readFileSync(path, 'utf8'));
const lines = (path: string): any[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/**
 * Starts shard JOB_COMPLETION_INDEX of `count` as the Job's pod would: the index from its environment, expanded into
 * the args.
 */
function startShard(index: number, count: number, args: readonly string[]) {
  const env = { JOB_COMPLETION_INDEX: String(index) };
  // Kubernetes expands $(VAR) in a container's args from its environment; so does this.
  const expanded = args.map((a) =>
    a.replace(/\$\(JOB_COMPLETION_INDEX\)/g, env.JOB_COMPLETION_INDEX).replace(/\$\(SHARDS\)/g, String(count)),
  );
  return startCli(expanded, env, 60_000);
}

describe('sharded runs and loadproof merge', () => {
  // Three node processes starting at once beside other load: a start 8 s ahead, and on the tool's refusal of it as
  // late, 16 s, then 32 s.
  const LEAD_MS = 8000;
  it(
    `${N} shards started together against one mock merge into the whole plan: counts equal the mock's, and the judgement equals one process's over the same events`,
    { timeout: commonStartBudgetMs(LEAD_MS, 20_000) },
    async () => {
      const { s, dir, out, startAt } = await withCommonStart(LEAD_MS, async (startAtMs) => {
        // The tight profile's bucket (61 requests above 30 rpm) refuses much of this plan: 429s inside the documented
        // envelope, which a shard alone must not judge (it saw a third of what filled the bucket) and the merge must.
        const s = await mock({ profile: 'tight' });
        const { dir, file, out } = scenarioWorkspace(
          scenarioAt(
            s.url,
            '  - { name: steady, duration: 45s, rpm: 160 }\n  - { name: after, duration: 15s, rpm: 60 }\n',
          ),
        );
        const startAt = new Date(startAtMs).toISOString();
        const shards = Array.from({ length: N }, (_, i) =>
          startShard(i, N, [
            'run',
            '--no-charts',
            file,
            '--shard',
            '$(JOB_COMPLETION_INDEX)/$(SHARDS)',
            '--start-at',
            startAt,
            '--time-scale',
            String(K),
            '--out',
            out,
          ]),
        );
        // Nothing of the load before the common start (token calls and connections are warm-up, not load).
        await new Promise((r) => setTimeout(r, Math.max(0, startAtMs - 1000 - Date.now())));
        if (Date.now() < startAtMs) expect(s.stats().requests.identification.received).toBe(0);
        const ended = await Promise.all(shards.map((p) => p.exited));
        if (ended.some((e) => refusedAsLate(e.code, e.stderr))) return LATE_START;
        for (const e of ended) expect(e.code, e.stderr).toBe(0);
        return { s, dir, out, startAt };
      });
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
        expect(run.end.startLateMs).toBeLessThanOrEqual(1000);
        const own = readJson(join(folder, 'summary.json'));
        expect(own.shard).toEqual({ index: run.shard.index, count: N });
        // A shard counts its 429s and leaves them to the merge: none is a finding against the service here.
        for (const c of own.verdict.checks.filter((c: any) => c.id === 'http_429_in_envelope')) {
          expect(c.status).not.toBe('fail');
          if (c.observed > 0 || own.phases.find((p: any) => p.name === c.phase).outcomes.http_429 > 0)
            expect(c.reason).toContain('not judged in a shard');
        }
        expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain(`# sharded (shard ${run.shard.index}/${N}):`);
        expect(readFileSync(join(folder, 'junit.xml'), 'utf8')).toContain(
          `name="loadproof: sharded (shard ${run.shard.index}/${N})"`,
        );
      }
      expect(seqs.size).toBe(whole);

      const merged = await runMain(['merge', '--no-charts', ...[...folders].reverse(), '--out', join(dir, 'merged')]);
      // The merge judges the 429s against the whole bucket: the tight mock refuses inside the documented envelope (exit
      // 1).
      expect(merged.code, merged.stderr).toBe(1);
      expect(merged.stdout).toContain(`merged from ${N} shards`);
      const [mergedFolder] = runFolders(join(dir, 'merged'));
      const mergedDir = join(dir, 'merged', mergedFolder!);
      const summary = readJson(join(mergedDir, 'summary.json'));
      // Counts add exactly, and reconcile with what the one mock saw.
      const seen = s.stats().requests.identification;
      expect(summary.counts).toMatchObject({ planned: whole, unrecorded: 0 });
      expect(summary.overall.sent).toBe(seen.received);
      expect(summary.overall.outcomes.ok).toBe(seen.byStatus['200'] ?? 0);
      expect(summary.overall.outcomes.http_429).toBe(seen.byStatus['429'] ?? 0);
      expect(summary.overall.outcomes.http_429).toBeGreaterThan(0);
      expect(summary.verdict.checks.some((c: any) => c.id === 'http_429_in_envelope' && c.status === 'fail')).toBe(
        true,
      );
      expect(summary.token.calls).toBe(s.stats().requests.token.received);
      expect(summary.mergedFrom.map((m: any) => m.index)).toEqual([0, 1, 2]);
      expect((await runMain(['verify', mergedDir])).code).toBe(0);

      // One process's judgement of the same events: the shards' lines in a folder of the whole plan, with the
      // end one process would have recorded, put together here (not by merge): counts added, the worst loop delay.
      const single = join(mkdtempSync(join(tmpdir(), 'loadproof-single-')), 'run');
      cpSync(folders[0]!, single, { recursive: true });
      const run = readJson(join(single, 'run.json'));
      delete run.shard;
      const ends = folders.map((f) => readJson(join(f, 'run.json')).end);
      const add = (f: (e: any) => number): number => ends.reduce((n, e) => n + f(e), 0);
      const end = {
        ...ends[0],
        engine: {
          fired: add((e) => e.engine.fired),
          dropped: add((e) => e.engine.dropped),
          unsent: add((e) => e.engine.unsent),
          abandoned: add((e) => e.engine.abandoned),
          interrupted: false,
          elapsedMs: Math.max(...ends.map((e) => e.engine.elapsedMs)),
        },
        tokenCalls: add((e) => e.tokenCalls),
        eventLoopDelayP99Ms: Math.max(...ends.map((e) => e.eventLoopDelayP99Ms)),
        eventLoopDelayMaxMs: Math.max(...ends.map((e) => e.eventLoopDelayMaxMs)),
      };
      writeFileSync(join(single, 'run.json'), JSON.stringify({ ...run, end }));
      writeFileSync(
        join(single, 'events.ndjson'),
        folders.map((f) => readFileSync(join(f, 'events.ndjson'), 'utf8')).join(''),
      );
      expect((await runMain(['report', '--no-charts', single])).code).toBe(1);
      const alone = readJson(join(single, 'summary.json'));
      expect(alone.phases).toEqual(summary.phases);
      expect(alone.overall).toEqual(summary.overall);
      expect(alone.verdict).toEqual(summary.verdict);
      expect(alone.timeline).toEqual(summary.timeline);
    },
  );

  describe('merge refuses what is not every shard of one plan (exit 2), writing nothing', () => {
    it(
      'a missing shard, a shard given twice, shards of different plans, a folder that is not a shard, shards without one start',
      { timeout: commonStartBudgetMs(5000, 15_000) },
      async () => {
        // The CLI's modules loaded before the start is chosen: on a busy machine loading them took seconds of the lead.
        expect((await runMain(['--version'])).code).toBe(0);
        // Three runs warming up on this one thread, on a busy machine, before the start.
        const { dir, out, startAt } = await withCommonStart(5000, async (startAtMs) => {
          const s = await mock({ profile: 'zero' });
          const { dir, file, out } = scenarioWorkspace(
            scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'),
          );
          const startAt = new Date(startAtMs).toISOString();
          const runs = await Promise.all(
            [0, 1, 2].map((i) =>
              runMain([
                'run',
                '--no-charts',
                file,
                '--shard',
                `${i}/3`,
                '--start-at',
                startAt,
                '--time-scale',
                String(K),
                '--out',
                out,
              ]),
            ),
          );
          if (runs.some((r) => refusedAsLate(r.code, r.stderr))) return LATE_START;
          expect(
            runs.map((r) => r.code),
            runs.map((r) => r.stderr).join('\n'),
          ).toEqual([0, 0, 0]);
          return { dir, out, startAt };
        });
        const [a0, a1, a2] = runFolders(out)
          .map((f) => join(out, f))
          .sort((x, y) => readJson(join(x, 'run.json')).shard.index - readJson(join(y, 'run.json')).shard.index);
        // The other cases from copies of these, their run.json changed as another run would have written it.
        const variant = (from: string, name: string, change: (run: any) => void): string => {
          const copy = join(dir, name);
          cpSync(from, copy, { recursive: true });
          const run = readJson(join(copy, 'run.json'));
          change(run);
          writeFileSync(join(copy, 'run.json'), JSON.stringify(run));
          return copy;
        };
        const otherPlan = variant(a2!, 'other-plan', (r) => (r.planIdentity = `sha256:${'0'.repeat(64)}`));
        const otherStart = variant(
          a1!,
          'other-start',
          (r) => (r.startAt = new Date(Date.parse(startAt) + 1000).toISOString()),
        );
        const noStart = variant(a1!, 'no-start', (r) => delete r.startAt);
        const notShard = variant(a0!, 'not-shard', (r) => delete r.shard);
        const ownMock = variant(a1!, 'own-mock', (r) => (r.target = { ...r.target, kind: 'embedded-mock' }));
        const noEnd = variant(a2!, 'no-end', (r) => delete r.end);
        // A shard whose events were changed after its run: its manifest says so, and the merge will not vouch for it.
        const tampered = join(dir, 'tampered');
        cpSync(a1!, tampered, { recursive: true });
        writeFileSync(
          join(tampered, 'events.ndjson'),
          readFileSync(join(tampered, 'events.ndjson'), 'utf8').replace(/"latencyMs":[0-9.]+/, '"latencyMs":9000'),
        );
        const target = mkdtempSync(join(tmpdir(), 'loadproof-merge-'));
        const cases: [string[], string][] = [
          [[a0!, a1!], '1 of 3 shards missing: 2/3 (given: 0, 1)'],
          [[a0!, a1!, a1!], 'shard 1/3 given twice'],
          [[a0!, a1!, otherPlan], 'shards of different plans'],
          [[notShard, a1!, a2!], 'not a shard (its run.json has no shard'],
          [[a0!, otherStart, a2!], 'shards without a common start'],
          [[a0!, noStart, a2!], 'ran without --start-at: its events are timed from its own start'],
          [[a0!, ownMock, a2!], 'shards of different services'],
          // run.json is checked field by field: an end that is not there is malformed, not a run that did not finish.
          [[a0!, a1!, noEnd], 'run.json: end: '],
          [[a0!, tampered, a2!], 'shard 1/3 is not as its run left it (changed: events.ndjson)'],
        ];
        for (const [dirs, message] of cases) {
          const { code, stderr } = await runMain(['merge', ...dirs, '--out', target]);
          expect(code, stderr).toBe(2);
          expect(stderr).toContain(message);
        }
        expect(readdirSync(target)).toEqual([]);
        // And the three together merge.
        expect([0, 5]).toContain((await runMain(['merge', '--no-charts', a2!, a0!, a1!, '--out', target])).code);
      },
    );
  });

  it(
    'a shard stopped by a signal makes the merged run partial: exit 4 from merge and from report, the same in summary.json',
    { timeout: commonStartBudgetMs(6000, 15_000) },
    async () => {
      const { dir, out } = await withCommonStart(6000, async (startAtMs) => {
        const s = await mock({ profile: 'zero' });
        const { dir, file, out } = scenarioWorkspace(
          scenarioAt(s.url, '  - { name: steady, duration: 20s, rpm: 60 }\n'),
        );
        const startAt = new Date(startAtMs).toISOString();
        const args = (i: number): string[] => [
          'run',
          '--no-charts',
          file,
          '--shard',
          `${i}/2`,
          '--start-at',
          startAt,
          '--time-scale',
          String(K),
          '--out',
          out,
        ];
        const whole = startCli(args(0), {}, 60_000);
        const stopped = startCli(args(1), {}, 60_000);
        // Stopped while it waits for the start: its run ends, recorded, with every request unsent.
        let seen = '';
        const waiting = await new Promise<boolean>((resolve) => {
          stopped.child.stderr.on('data', (chunk: string) => {
            seen += chunk;
            if (seen.includes('the schedule starts at')) resolve(true);
          });
          void stopped.exited.then(() => resolve(false));
        });
        // Not ready before the start (a busy machine): no shard waiting to be stopped, but one refused as late, or one
        // that ran from a start late within its budget. Again, further ahead.
        if (!waiting) {
          const early = await stopped.exited;
          expect(
            refusedAsLate(early.code, early.stderr) ||
              (early.code === 0 && /--start-at: started \d+ ms late/.test(early.stderr)),
            early.stderr,
          ).toBe(true);
          await whole.exited;
          return LATE_START;
        }
        stopped.child.kill('SIGINT');
        expect((await stopped.exited).code).toBe(130);
        const other = await whole.exited;
        if (refusedAsLate(other.code, other.stderr)) return LATE_START;
        expect(other.code, other.stderr).toBe(0);
        return { dir, out };
      });
      const merged = await runMain([
        'merge',
        '--no-charts',
        ...runFolders(out).map((f) => join(out, f)),
        '--out',
        join(dir, 'merged'),
      ]);
      expect(merged.code, merged.stderr).toBe(4);
      expect(merged.stdout).toContain('STOPPED (SHARD_STOPPED)');
      const mergedDir = join(dir, 'merged', runFolders(join(dir, 'merged'))[0]!);
      expect(readJson(join(mergedDir, 'summary.json')).exitCode).toBe(4);
      expect((await runMain(['report', '--no-charts', mergedDir])).code).toBe(4);
    },
  );

  describe('a shard is refused what the whole plan would be (exit 3 or 2), and sends nothing', () => {
    it('a plan whose whole peaks above the spec, split so that each shard looks harmless', async () => {
      const s = await mock();
      const { file, out } = scenarioWorkspace(
        scenarioAt(
          s.url,
          '  - { name: too-much, duration: 2m, rpm: 400 }\n',
          'sandbox',
          'notice: { announcedOn: 2026-01-01, reference: SUP-1 }\n',
        ),
      );
      const { code, stderr } = await runMain(
        ['run', file, '--shard', '0/4', '--allow-loopback-as-real', '--out', out],
        { LOADPROOF_CLIENT_ID: s.clientId, LOADPROOF_CLIENT_SECRET: s.clientSecret },
      );
      expect(code).toBe(3);
      expect(stderr).toMatch(/it peaks at 400 rpm/);
      expect(s.stats().requests.token.received).toBe(0);
    });

    it('a shard ready more than a second after --start-at (its token call was slow): every request unsent, exit 4', async () => {
      // The token answers 1.5 s after the start, however long the run took to get there.
      const startAtMs = Date.now() + 2500;
      const s = await stub({
        token: (n) =>
          ({ ...(tokenAnswer(n) as object), delayMs: Math.max(0, startAtMs + 1500 - Date.now()) }) as ReturnType<
            typeof tokenAnswer
          >,
      });
      const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
      const { code, stderr } = await runMain([
        'run',
        '--no-charts',
        file,
        '--shard',
        '0/2',
        '--start-at',
        new Date(startAtMs).toISOString(),
        '--out',
        out,
      ]);
      expect(code, stderr).toBe(4);
      expect(stderr).toMatch(
        /--start-at: ready \d+ ms after it, more than 1000 ms \(1 s of model time\): no request is sent/,
      );
      expect(s.counts.identification).toBe(0);
      const summary = readJson(join(out, runFolders(out)[0]!, 'summary.json'));
      expect(summary.counts).toMatchObject({ planned: 5 });
      expect(summary.overall.unsent).toBe(5);
    });

    it.each([
      ['a shard index not below the count', ['--shard', '3/3'], '--shard: expected i/n with 0 ≤ i < n ≤ 1000'],
      [
        'more shards than maxInFlight (each holds at least one request in flight)',
        ['--shard', '0/200'],
        "--shard 0/200: 200 shards would hold at least 200 requests in flight, more than the scenario's maxInFlight of 128",
      ],
      [
        'a start more than a second past',
        ['--shard', '0/2', '--start-at', '2020-01-01T00:00:00Z'],
        '--start-at 2020-01-01T00:00:00.000Z:',
      ],
      [
        'a start without a zone',
        ['--start-at', '2030-01-01T00:00:00'],
        '--start-at: expected an ISO date-time with a zone',
      ],
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
