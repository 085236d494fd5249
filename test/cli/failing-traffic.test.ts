/**
 * Failing traffic never passes, end to end through the CLI against real servers
 * on loopback: every request answered 500, a target killed mid-run, every request refused with 403,
 * requests dropped at maxInFlight. Each of these passed before: errors come back fast and pull p95
 * down, and nothing judged them. Now every phase has an error check (rate(errors) < 1 % unless the
 * scenario says otherwise), and a target that stops answering ends the run with exit 4.
 *
 * The verdict is what is tested: runs go through the built CLI's main() in-process (runMain), but
 * the first, whose exit code 1 is also checked on a real child process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { expectSameWhenJudgedAgain } from '../helpers/rejudge.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock, stub } = serversFor(K);

const scenarioAt = (url: string, phases: string, extra = ''): string =>
  `name: failing\ndescription: traffic that fails\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n${phases}${extra}`;

async function onlyRun(out: string): Promise<{ summary: any; events: any[] }> {
  const [folder, ...more] = runFolders(out);
  expect(more).toEqual([]);
  const dir = join(out, folder!);
  await expectSameWhenJudgedAgain(dir);
  const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')), events };
}

const errorCheckOf = (summary: any, phase: string): any =>
  summary.verdict.checks.find((c: any) => c.id === 'error_rate' && c.phase === phase);

describe('failing traffic fails the verdict', () => {
  it('every request answered 500: exit 1, the error check names them', async () => {
    const s = await mock({ profile: 'zero', faults: { http500Rate: 1 } });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 1m, rpm: 200 }\n'));
    const { code, stdout } = await runCli(
      ['run', '--no-charts', file, '--time-scale', String(K), '--out', out],
      {},
      60_000,
    );
    expect(code).toBe(1);
    const { summary } = await onlyRun(out);
    expect(errorCheckOf(summary, 'steady')).toMatchObject({
      status: 'fail',
      what: 'errors: rate < 1%',
      observed: 1,
      reason: '200 of 200 (100.00 %)',
    });
    expect(stdout).toContain('phase steady: errors: rate < 1%: 200 of 200 (100.00 %)');
  });

  it('every request refused with 403: exit 1', async () => {
    const s = await stub({ identify: () => ({ status: 403, body: { error: 'forbidden' } }) });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 2s, rpm: 300 }\n'));
    const { code } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(1);
    const { summary } = await onlyRun(out);
    expect(errorCheckOf(summary, 'steady')).toMatchObject({ status: 'fail', observed: 1 });
    expect(summary.overall.status).toEqual({ 403: 10 });
  });

  it('requests dropped at maxInFlight by a service too slow for its target count as failed: exit 1, the reason names them', async () => {
    // Half the answers take 30 s: far more in flight than the 16 a service meeting 4 s at 200 rpm would hold (13.3).
    const s = await mock({ profile: 'zero', faults: { slowRate: 0.5, slowExtraMs: 30_000 } });
    const { file, out } = scenarioWorkspace(
      scenarioAt(s.url, '  - { name: steady, duration: 1m, rpm: 200 }\n', 'maxInFlight: 16\ntimeout: 1m\n'),
    );
    const { code } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const { summary } = await onlyRun(out);
    const p = summary.phases[0];
    expect(p.dropped).toBeGreaterThan(0);
    // The answers of 30 s fail p95 on their own: a fail (exit 1) however late the generator was, since taking its worst
    // lateness off leaves them far over 4 s, and drops never excuse a latency fail the answers make (review).
    expect(code).toBe(1);
    expect(
      summary.verdict.checks.find((c: any) => c.id === 'latency_p95_target' && c.phase === 'steady'),
    ).toMatchObject({ status: 'fail' });
    // The error check is a fail too, unless the generator stood still long enough to fill the 16 slots by itself
    // (4.8 s of model time at 200 rpm: 240 ms of wall time at k = 20, which a busy machine can do); then its reason
    // says so.
    const error = errorCheckOf(summary, 'steady');
    if (error.status !== 'fail')
      expect(error).toMatchObject({
        status: 'inconclusive',
        reason: expect.stringMatching(
          /while the generator was late \(its worst stall, .* enough to fill the 16 slots by itself\)/,
        ),
      });
    expect(errorCheckOf(summary, 'steady').reason).toMatch(
      new RegExp(`^${p.dropped + p.outcomes.timeout + p.outcomes.abandoned} of ${p.sent + p.dropped} `),
    );
  });

  it('drops at a client maxInFlight too small for the rate make the verdict inconclusive, naming the cap, not a fail of the service (review)', async () => {
    // maxInFlight 3 at 200 rpm: a service meeting 4 s could hold 13 in flight, so it would be dropped at too.
    const s = await mock({ profile: 'nominal' });
    const { file, out } = scenarioWorkspace(
      scenarioAt(s.url, '  - { name: steady, duration: 1m, rpm: 200 }\n', 'maxInFlight: 3\n'),
    );
    const { code, stdout } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    expect(code).toBe(5);
    const { summary } = await onlyRun(out);
    expect(summary.counts.dropped).toBeGreaterThan(0);
    expect(summary.verdict.checks.filter((c: any) => c.status === 'fail')).toEqual([]);
    expect(errorCheckOf(summary, 'steady')).toMatchObject({ status: 'inconclusive' });
    expect(stdout).toContain(
      "dropped at the client's maxInFlight (3), below what a service meeting its target would hold in flight at this rate (peak rate × target ≈ 14)",
    );
  });

  it('takes the error check from the scenario, k6 style, or none', async () => {
    // 30 s at 200 rpm: 100 requests, a tenth answered 500 (seeded), so "count == 0" fails and "rate < 50%" passes.
    const s = await mock({ profile: 'zero', faults: { http500Rate: 0.1 } });
    const phases = '  - { name: steady, duration: 30s, rpm: 200 }\n';
    for (const [errors, exit] of [
      ['rate < 50%', 0],
      ['count == 0', 1],
      ['none', 0],
    ] as const) {
      const { file, out } = scenarioWorkspace(
        scenarioAt(s.url, phases, `thresholds: { documentedTargets: false, errors: "${errors}" }\n`),
      );
      const { code } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
      expect(code, errors).toBe(exit);
      const check = errorCheckOf((await onlyRun(out)).summary, 'steady');
      if (errors === 'none') expect(check).toBeUndefined();
      else expect(check.what).toBe(`errors: ${errors}`);
    }
  });

  it('refuses an error check it cannot read, with exit 2 and the field named', async () => {
    const { file, out } = scenarioWorkspace(
      scenarioAt(
        'http://127.0.0.1:9',
        '  - { name: steady, duration: 1m, rpm: 200 }\n',
        'thresholds: { errors: "p(95) < 1s" }\n',
      ),
    );
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'thresholds.errors: expected "rate <op> <n% or 0–1>", "count <op> <integer>", or "none", got "p(95) < 1s"',
    );
  });
});

describe('a target that stops answering ends the run with exit 4, everything measured kept', () => {
  it('the target killed in the last minute of the plan: too late for a minute of silence, exit 4 all the same (review)', async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 2m, rpm: 120 }\n'));
    const run = runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    // 160 of 240 requests: 80 s of the plan's 120 s.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (s.stats().requests.identification.received >= 160) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    await s.close();
    const { code, stderr } = await run;
    expect(code).toBe(4);
    expect(stderr).toMatch(
      /TARGET_UNREACHABLE: the target stopped answering: the last \d+ requests of the run got no HTTP answer/,
    );
    const { summary, events } = await onlyRun(out);
    expect(summary).toMatchObject({
      interrupted: false,
      stopped: { by: 'failure', code: 'TARGET_UNREACHABLE' },
      exitCode: 4,
    });
    expect(events).toHaveLength(240);
  });

  it('the target killed 5 s into the run', async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 10m, rpm: 60 }\n'));
    const run = runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const seen = await new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        const n = s.stats().requests.identification.received;
        if (n >= 5) {
          clearInterval(poll);
          resolve(n);
        }
      }, 5);
    });
    const counted = await s.close().then(() => s.stats().requests.identification);
    const received = counted.received;
    expect(received).toBeGreaterThanOrEqual(seen);
    // Time-scaled, the mock answers up to its model's lag (MODEL_LAG_WALL_MS) after the model's time:
    // a request taken in the last moment before the close may have had no answer.
    const answered = counted.byStatus['200'] ?? 0;
    expect(received - answered).toBeLessThanOrEqual(2);
    const { code, stderr } = await run;
    expect(code).toBe(4);
    expect(stderr).toContain('TARGET_UNREACHABLE: the target stopped answering: no HTTP answer for');
    const { summary, events } = await onlyRun(out);
    expect(summary.stopped).toMatchObject({ by: 'failure', code: 'TARGET_UNREACHABLE' });
    expect(summary.counts.planned).toBe(600);
    expect(summary.counts.unsent).toBeGreaterThan(0);
    expect(events).toHaveLength(600);
    expect(summary.overall.outcomes.ok).toBe(answered);
    // The silence at k = 20 must last 5 s of wall time (100 s of model time, longer than the model
    // minute): about 100 requests at 60 rpm, give or take the requests in flight — not the whole plan.
    // (stale_connection: a request written on a connection the killed target had left idle; no answer either)
    const o = summary.overall.outcomes;
    const failed = o.refused + o.reset + o.error + o.stale_connection;
    expect(failed).toBeGreaterThanOrEqual(90);
    expect(failed).toBeLessThan(130);
  });
});
