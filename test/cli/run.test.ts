/**
 * `loadproof run` against a real mock on an ephemeral loopback port, at time scale 20 (a model minute
 * is 3 wall seconds: at 60, a wall second is a model minute, and beside other load the machine's
 * stalls timed requests out and failed a run against the nominal mock). Counts are reconciled with the mock's own
 * stats. A passing run, a signal and the retry herd run the CLI as a child process; the rest run the built CLI's main()
 * in-process (runMain).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { expectSameWhenJudgedAgain } from '../helpers/rejudge.js';

const K = 20;
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const workspace = scenarioWorkspace;

const scenarioFor = (
  baseUrl: string,
  phases = '  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n',
  extra = '',
): string =>
  `name: cli-run\ndescription: a short run for the tests\ntarget:\n  environment: mock\n  baseUrl: ${baseUrl}\nphases:\n${phases}${extra}`;

async function readReport(out: string): Promise<{ summary: any; events: any[] }> {
  const [folder] = runFolders(out);
  const dir = join(out, folder!);
  await expectSameWhenJudgedAgain(dir);
  const events = readFileSync(join(dir, 'events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')), events };
}

async function mock(options: MockServerOptions = {}): Promise<MockServer> {
  server = await startMockServer({ timeScale: K, ...options });
  return server;
}

describe('loadproof run', () => {
  it('passes against nominal, and its counts reconcile exactly with what the mock saw', async () => {
    const s = await mock();
    const { file, out } = workspace(scenarioFor(s.url));
    const { code, stdout } = await runCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const { summary, events } = await readReport(out);
    // A busy machine can make the generator (or the embedded mock's thread) late by more than its budget; and the
    // p95's interval over 100 answers (about 1.6–2.6 s against 2.5 s) may reach past the target when a time-scaled
    // run's wall overheads move a few answers: either way the honest verdict is inconclusive, never a fail.
    if (code === 5)
      expect(`${summary.verdict.notes.join('\n')}\n${stdout}`).toMatch(
        /the generator was late|The embedded mock fell behind|phase steady: p\(95\) < 2\.50s [^\n]* straddles 2\.50s/,
      );
    else {
      expect(code).toBe(0);
      expect(stdout).toContain('verdict: PASS — exit 0');
    }
    expect(summary).toMatchObject({
      schemaVersion: 5,
      scenario: 'cli-run',
      environment: 'mock',
      timeScale: K,
      interrupted: false,
    });
    expect(summary.overall).toMatchObject({ name: 'overall', offeredRpm: 100, planned: 100, sent: 100, target: null });
    // Goodput: every request answered 2xx over the 60 s phase.
    expect(summary.overall.goodputRpm).toBe((summary.overall.outcomes.ok / 60) * 60);
    expect(summary.phases[0]).toMatchObject({
      name: 'steady',
      offeredRpm: 100,
      durationS: 60,
      planned: 100,
      target: { band: 'sustained', p95Ms: 2500 },
    });
    for (const key of ['latencyMs', 'serviceMs', 'sendLagMs'])
      expect(Object.keys(summary.phases[0][key]).sort()).toEqual(['count', 'max', 'mean', 'p50', 'p90', 'p95', 'p99']);
    expect(summary.timeline.length).toBeGreaterThanOrEqual(6);
    expect(summary.counts).toEqual({
      planned: 100,
      fired: 100,
      sent: 100,
      dropped: 0,
      unsent: 0,
      abandoned: 0,
      unrecorded: 0,
    });
    expect(events).toHaveLength(100);
    const seen = s.stats().requests.identification;
    expect(seen.received).toBe(summary.counts.sent);
    expect(seen.byStatus).toEqual(Object.fromEntries(Object.entries(summary.overall.status).map(([k, v]) => [k, v])));
    expect(s.stats().requests.token.received).toBe(summary.token.calls);
  });

  it('plans one arrival every 600 ms (model) and sends none before its time (how close to it: bench:send-lag)', async () => {
    // How close the sends come to their times is the bench's business (npm run bench:send-lag), not a test's.
    const s = await mock({ profile: 'zero' });
    const { file, out } = workspace(scenarioFor(s.url));
    await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    const { events } = await readReport(out);
    expect(events).toHaveLength(100);
    const intended = events.map((e) => e.intendedAtMs as number).sort((a, b) => a - b);
    intended.forEach((t, i) => expect(t).toBeCloseTo(i * 600, 3));
    for (const e of events) expect(e.firedAtMs).toBeGreaterThanOrEqual(e.intendedAtMs - 0.001);
    expect(s.stats().requests.identification.received).toBe(100);
    // Latency as accounted at k > 1 (overheads once): at most the raw span, at least the mock's own time
    // in service. Only answers carry a service time: a stall of this busy machine at the start can time
    // out a request, which has none.
    const answered = events.filter((e) => e.status !== null);
    expect(answered.length).toBeGreaterThan(50);
    for (const e of answered) {
      expect(e.latencyMs).toBeLessThanOrEqual(e.endAtMs - e.intendedAtMs + 0.001);
      expect(e.latencyMs).toBeGreaterThanOrEqual(e.tries.at(-1).serviceMs - 0.001);
    }
  });

  it('exits 1 and names the failing phase against a degraded service', async () => {
    // A fail stands only where the generator's worst lateness (× k in model time) cannot have caused
    // it: k = 10 and the embedded mock (its own thread) keep a busy machine's stalls under the margin
    // (p95's interval 4.3–7.9 s against 2.5 s; a stall of 180 ms of wall time is 1.8 s of model time).
    const { file, out } = workspace(
      'name: cli-run\ndescription: a degraded service\nphases:\n  - { name: steady, duration: 1m, rpm: 100, warmup: 10s }\n',
    );
    const { code, stdout, stderr } = await runMain([
      'run',
      '--no-charts',
      file,
      '--time-scale',
      '10',
      '--mock-profile',
      'degraded',
      '--out',
      out,
    ]);
    // The tool late beyond what the margin absorbs (a busy machine: the embedded mock's thread stood still 653 ms of
    // wall time, 6.5 s of model time) makes the honest verdict inconclusive, and says so; never a pass.
    if (code === 5) {
      expect(stdout).toMatch(
        /verdict: INCONCLUSIVE — exit 5\n {2}- phase steady: p\(95\) < 2\.50s .*not < 2\.50s, but/,
      );
      expect(stdout).toMatch(/the generator was late|The embedded mock fell behind/);
      return;
    }
    expect(code, stdout + stderr).toBe(1);
    expect(stdout).toMatch(
      /verdict: FAIL — exit 1\n {2}- phase steady: p\(95\) < 2\.50s \(spec, sustained band, steady state\): p\(95\) [\d.]+s/,
    );
    expect((await readReport(out)).summary.phases[0].verdict).toBe('fail');
  });

  it.each([
    {
      name: 'a negative rate',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 1m, rpm: -5 }\n'),
      args: [] as string[],
      code: 2,
      mention: 'phases[0].rpm: expected rpm > 0 (requests per minute), got -5',
    },
    {
      name: 'a zero rate',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 1m, rpm: 0 }\n'),
      args: [],
      code: 2,
      mention: 'phases[0].rpm: expected rpm > 0 (requests per minute), got 0',
    },
    {
      name: 'an unknown field',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 1m, rpm: 5, rps: 1 }\n'),
      args: [],
      code: 2,
      mention: 'phases[0].rps: unknown field',
    },
    {
      name: 'a wrong type',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 1m, rpm: "fast" }\n'),
      args: [],
      code: 2,
      mention: 'phases[0].rpm: expected rpm as a number of requests per minute, got "fast"',
    },
    {
      name: 'a missing duration',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, rpm: 5 }\n'),
      args: [],
      code: 2,
      mention: 'phases[0].duration: expected a duration as a string like "90s", "5m" or "1m30s", got nothing',
    },
    {
      name: 'a malformed duration',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 10 minutes, rpm: 5 }\n'),
      args: [],
      code: 2,
      mention: 'got "10 minutes"',
    },
    {
      name: 'a ramp without an end',
      scenario: (url: string) => scenarioFor(url, '  - { name: steady, duration: 1m, fromRpm: 5 }\n'),
      args: [],
      code: 2,
      mention: 'phases[0].toRpm: a ramp needs toRpm',
    },
    {
      name: 'a secret inside the file',
      scenario: (url: string) => scenarioFor(url, undefined, 'client_secret: s3cr3t-in-the-file\n'),
      args: [],
      code: 2,
      mention: 'client_secret: a secret does not belong in a scenario file',
    },
    {
      name: 'a time-scale mismatch',
      scenario: (url: string) => scenarioFor(url),
      args: ['--time-scale', '30'],
      code: 2,
      mention: 'does not match the mock',
    },
    {
      name: 'a real environment',
      scenario: (url: string) => scenarioFor(url).replace('environment: mock', 'environment: sandbox'),
      args: [],
      code: 3,
      mention: 'GUARD_REFUSED',
    },
  ])('refuses $name with exit $code and sends nothing', async ({ scenario, args, code, mention }) => {
    const s = await mock();
    const { file, out } = workspace(scenario(s.url));
    const result = await runMain([
      'run',
      '--no-charts',
      file,
      '--out',
      out,
      ...(args.length > 0 ? args : ['--time-scale', String(K)]),
    ]);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(mention);
    expect(result.stdout + result.stderr).not.toContain('s3cr3t-in-the-file');
    const seen = s.stats().requests;
    expect(seen.identification.received + seen.token.received).toBe(0);
  });

  it('exits 4 when the token call fails, explains the status in words, and sends no load', async () => {
    const s = await mock();
    const { file, out } = workspace(scenarioFor(s.url));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], {
      LOADPROOF_CLIENT_ID: s.clientId,
      LOADPROOF_CLIENT_SECRET: 'wrong-secret-value-123',
    });
    expect(code).toBe(4);
    expect(stderr).toContain(
      'AUTH_FAILED: cannot authenticate: the client_id or client_secret is wrong (401 Unauthorized); they came from $LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET',
    );
    expect(stderr).not.toContain('wrong-secret-value-123');
    expect(s.stats().requests.token.received).toBe(1);
    expect(s.stats().requests.identification.received).toBe(0);
  });

  it('stops on SIGINT with exit 130 and writes a partial report marked interrupted', async () => {
    const s = await mock();
    const { file, out } = workspace(scenarioFor(s.url, '  - { name: long, duration: 10m, rpm: 100 }\n'));
    const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    // Wait until the load has started (the mock has answered something), then interrupt. The bound is a safety net
    // (60 s), not a speed: on a busy machine a SIGINT sent before the CLI has loaded kills it without its handler.
    for (let i = 0; i < 2400 && s.stats().requests.identification.received < 20; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(s.stats().requests.identification.received).toBeGreaterThanOrEqual(20);
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(130);
    expect(stderr).toContain('SIGINT: no new requests');
    expect(stdout).toContain('INTERRUPTED');
    const { summary, events } = await readReport(out);
    expect(summary.interrupted).toBe(true);
    expect(summary.counts.unsent).toBeGreaterThan(0);
    expect(summary.stopped).toMatchObject({ by: 'signal', code: 'INTERRUPTED' });
    // Every planned request has exactly one line, the unsent ones too, and the counts reconcile.
    expect(summary.counts.planned).toBe(summary.counts.sent + summary.counts.dropped + summary.counts.unsent);
    expect(events.map((e) => e.seq).sort((a, b) => a - b)).toEqual([...Array(summary.counts.planned).keys()]);
    expect(events.filter((e) => e.outcome === 'unsent')).toHaveLength(summary.counts.unsent);
    expect(s.stats().requests.identification.received).toBe(summary.counts.sent);
  });
});

describe('loadproof run with on429: retry', () => {
  it('waits at least Retry-After before each retry, and jittered back-off above it, as the server saw the arrivals', async () => {
    // 30 rpm refill and no burst room, offered 60 rpm: about every other request gets a 429 with
    // Retry-After of a few seconds; retried, it must not come back sooner (server clock, model time).
    const s = await mock({ limits: { sustainedRpm: 30, burstRpm: 30 } });
    const { file, out } = workspace(
      scenarioFor(
        s.url,
        '  - { name: steady, duration: 1m, rpm: 60 }\n',
        'on429: { policy: retry, maxAttempts: 3, baseDelay: 1s, maxDelay: 10s }\n',
      ),
    );
    const { code } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    expect([0, 1, 5]).toContain(code); // the verdict is not the point here; the waits are
    const log = (await (await fetch(`${s.url}/__mock/log`)).json()) as {
      entries: {
        seq: number;
        attempt: number;
        arrivedAtMs: number;
        answeredAtMs: number;
        status: number;
        retryAfterS: number | null;
      }[];
    };
    const bySeq = new Map<number, typeof log.entries>();
    for (const e of log.entries) bySeq.set(e.seq, [...(bySeq.get(e.seq) ?? []), e]);
    let retries = 0;
    const excessMs: number[] = [];
    for (const attempts of bySeq.values()) {
      attempts.sort((a, b) => a.attempt - b.attempt);
      for (let i = 1; i < attempts.length; i++) {
        const previous = attempts[i - 1]!;
        expect(previous.status).toBe(429);
        expect(previous.retryAfterS).not.toBeNull();
        // The retry arrived no sooner than Retry-After after the 429 was answered (1 ms of wall slack = K ms of model
        // time).
        expect(attempts[i]!.arrivedAtMs - previous.answeredAtMs).toBeGreaterThanOrEqual(
          previous.retryAfterS! * 1000 - K,
        );
        excessMs.push(attempts[i]!.arrivedAtMs - previous.answeredAtMs - previous.retryAfterS! * 1000);
        retries++;
      }
    }
    expect(retries).toBeGreaterThan(5);
    // Retry-After is the minimum, not the wait: jittered back-off above it (uniform up to 1 s after the
    // first 429) spreads the retries of requests refused together. Waiting exactly Retry-After put
    // every retry within a few ms of it; lateness of this machine can only add spread.
    excessMs.sort((a, b) => a - b);
    const quantile = (q: number): number => excessMs[Math.floor(q * (excessMs.length - 1))]!;
    expect(quantile(0.75) - quantile(0.25)).toBeGreaterThan(250);
    const { summary } = await readReport(out);
    expect(summary.overall.attempts).toBe(log.entries.length);
  });
  // How much the jitter spreads the retries of a burst refused together (fewer 429s per request than
  // waiting exactly Retry-After) depends on how late this machine is: it is `npm run bench:retry-herd`.
});
