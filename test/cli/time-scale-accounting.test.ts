/**
 * Through the real CLI: a time-scaled run against the embedded mock (in its own worker
 * thread) records on each events line what its latency is made of — the raw times, and per try the
 * mock's model time in service (`serviceMs`, from Server-Timing) and the wait the client chose
 * (`waitMs`) — so that `loadproof report` judges the folder again to the same summary. No timing is
 * asserted: how close the figures come to k = 1 is measured by `npm run bench:time-scale`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { accountLatency } from '../../src/judge/accounting.js';
import type { EventRecord } from '../../src/judge/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { expectSameWhenJudgedAgain } from '../helpers/rejudge.js';

const K = 20;

/** 1 minute at 100 rpm on the `tight` mock (30 rpm sustained): 429s, and retries after a wait. */
const SCENARIO = `name: scaled
description: a time-scaled run with retries
target: { environment: mock, profile: tight }
phases:
  - { name: steady, duration: 1m, rpm: 100, warmup: 5s }
on429: { policy: retry, maxAttempts: 2, baseDelay: 1s, maxDelay: 5s }
thresholds: { documentedTargets: false }
`;

function readEvents(runDir: string): EventRecord[] {
  return readFileSync(join(runDir, 'events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as EventRecord);
}

describe('a time-scaled run against the embedded mock', () => {
  it("records each try's serviceMs (and a retry's waitMs), keeps the raw times raw, and re-judges to the same summary", async () => {
    const ws = scenarioWorkspace(SCENARIO);
    const { code, stderr } = await runCli(
      ['run', '--no-charts', ws.file, '--time-scale', String(K), '--out', ws.out],
      {},
      60_000,
    );
    expect(code, stderr).not.toBeNull(); // the process exited by itself: the mock's thread did not hold it
    expect([0, 1]).toContain(code);
    const runDir = join(ws.out, runFolders(ws.out)[0]!);
    const events = readEvents(runDir);
    const answered = events.filter((e) => e.endAtMs !== null && e.outcome !== 'abandoned');
    expect(answered.length).toBeGreaterThan(50);
    // Every answer of the mock carries its model time; every try with an HTTP status has it.
    for (const e of answered)
      for (const t of e.tries)
        if (t.status !== null) expect(t.serviceMs, JSON.stringify(e)).toEqual(expect.any(Number));
    const retried = answered.filter((e) => e.tries.length > 1);
    expect(retried.length).toBeGreaterThan(0);
    for (const e of retried) expect(e.tries[1]!.waitMs).toBeGreaterThanOrEqual(1000);
    for (const e of answered) {
      // The raw times stay raw: the last try is the last send, and the latency as judged is the accounting's.
      expect(e.tries.at(-1)!.sentAtMs).toBe(e.lastSentAtMs);
      const tries = e.tries.map((t) => ({
        sentAtMs: t.sentAtMs,
        endAtMs: t.endAtMs,
        ...(t.serviceMs === undefined ? {} : { serviceMs: t.serviceMs }),
        ...(t.lagMs === undefined ? {} : { lagMs: t.lagMs }),
        ...(t.waitMs === undefined ? {} : { waitMs: t.waitMs }),
      }));
      const accounted = accountLatency(
        { intendedAtMs: e.intendedAtMs, lastSentAtMs: e.lastSentAtMs!, endAtMs: e.endAtMs!, tries },
        K,
      ).latencyMs;
      expect(e.latencyMs).toBeCloseTo(accounted, 2);
      expect(e.latencyMs!).toBeLessThanOrEqual(e.endAtMs! - e.intendedAtMs + 0.001);
    }
    await expectSameWhenJudgedAgain(runDir);
  });

  it('at k = 1 the events carry no serviceMs, and the latency is end − intended', async () => {
    const ws = scenarioWorkspace(
      `name: real-time\ndescription: k = 1\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: steady, duration: 2s, rpm: 600, warmup: 500ms }\nthresholds: { documentedTargets: false }\n`,
    );
    const { code } = await runMain(['run', '--no-charts', ws.file, '--out', ws.out]);
    expect([0, 1, 5]).toContain(code);
    const runDir = join(ws.out, runFolders(ws.out)[0]!);
    const answered = readEvents(runDir).filter((e) => e.endAtMs !== null);
    expect(answered.length).toBeGreaterThan(10);
    for (const e of answered) {
      expect(e.tries.every((t) => t.serviceMs === undefined)).toBe(true);
      expect(e.latencyMs).toBeCloseTo(e.endAtMs! - e.intendedAtMs, 3);
    }
    await expectSameWhenJudgedAgain(runDir);
  });
});

/** A temporary ES module holding `script`, run as its own Node process. */
function moduleFile(script: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'loadproof-thread-')), 'script.mjs');
  writeFileSync(file, script);
  return file;
}

describe('the mock in a worker thread', () => {
  it('starts, answers over HTTP (stats and log too), closes, and lets the process exit by itself', async () => {
    const dist = fileURLToPath(new URL('../../dist/mock/index.js', import.meta.url));
    // No process.exit: the child ends only if nothing of the thread holds it open.
    const script = `
      const { startMockThread } = await import(${JSON.stringify(dist)});
      const m = await startMockThread({ profile: 'zero', timeScale: 7 });
      const token = await (await fetch(m.url + '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: m.clientId, client_secret: m.clientSecret, audience: m.audience, grant_type: 'client_credentials' }) })).json();
      const r = await fetch(m.url + '/entityextraction/pipelines/vendor-phi-identification', { method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token.access_token }, body: JSON.stringify({ text: 'Seen John Smith.' }) });
      await r.text();
      const stats = await (await fetch(m.url + '/__mock/stats')).json();
      const log = await (await fetch(m.url + '/__mock/log')).json();
      console.log(JSON.stringify({ status: r.status, timing: r.headers.get('server-timing'), timeScale: stats.timeScale, logged: log.entries.length }));
      await m.close();
      await m.close();
    `;
    const child = spawn(process.execPath, [moduleFile(script)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(guard);
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      status: 200,
      timing: expect.stringMatching(/^svc;dur=/),
      timeScale: 7,
      logged: 1,
    });
  });

  it('rejects bad options as the in-process server does (a usage error naming the field)', async () => {
    // In this process: a thread refused before it listens leaves nothing behind to hold a process.
    const { startMockThread } = (await import(
      new URL('../../dist/mock/index.js', import.meta.url).href
    )) as typeof import('../../src/mock/index.js');
    const error = await startMockThread({ profile: 'nope' as never }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error && { name: error.name, message: error.message }).toEqual({
      name: 'UsageError',
      message: expect.stringContaining('profile: expected one of'),
    });
  });
});
