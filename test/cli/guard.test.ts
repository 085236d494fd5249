/**
 * The guard through the real CLI. `plan --at` shows its decision for a chosen start; a refused
 * `run` sends nothing at all — not even the token request — which the mock's own counters show.
 * Sandbox-declared scenarios point at a loopback mock with --allow-loopback-as-real, the switch
 * that exists for these tests only.
 *
 * What is tested is the guard's decision, so most cases run the built CLI's main() in-process
 * (runMain); a refused run and a plan are also run as real child processes (end-to-end exit code).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const SANDBOX_EXAMPLE = fileURLToPath(new URL('../../scenarios/sandbox-burst.yaml', import.meta.url));
const DAY_MS = 86_400_000;
/** The UTC date `days` ago, as a notice would give it. */
const daysAgo = (days: number): string => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const workspace = scenarioWorkspace;

const sandboxAt = (url: string, extra = '', phases = '  - { name: short, duration: 4s, rpm: 60 }\n'): string =>
  `name: guarded\ndescription: a sandbox-declared scenario at a loopback mock\ntarget:\n  environment: sandbox\n  baseUrl: ${url}\nphases:\n${phases}${extra}`;
const notice = (announcedOn: string): string => `notice:\n  announcedOn: '${announcedOn}'\n  reference: CASE-4242\n`;

describe('loadproof plan --at', () => {
  it('allows the sandbox example on a date inside its notice window, naming each rule', async () => {
    const { code, stdout } = await runMain(['plan', SANDBOX_EXAMPLE, '--at', '2026-12-01T09:00:00Z']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Guard: ALLOWED for a run starting 2026-12-01T09:00:00Z against sandbox (planned end 2026-12-01T09:11:16Z)',
    );
    expect(stdout).toContain(
      '✔ notice         announced on 2026-11-09 (SUP-2026-1142), 22 days 9 hours before the run start (at least 14 days needed)',
    );
    expect(stdout).toContain('✔ coordination   never above 200 rpm: no coordination needed');
    expect(stdout).toContain('Nothing was sent: plan is a dry run.');
  });

  it('refuses it too early, with exit 3, saying how many days short and what would do', async () => {
    const { code, stdout } = await runCli(['plan', SANDBOX_EXAMPLE, '--at', '2026-11-20T09:00:00+01:00']);
    expect(code).toBe(3);
    expect(stdout).toContain('Guard: REFUSED for a run starting 2026-11-20T08:00:00Z');
    expect(stdout).toContain(
      '✖ notice         notice.announcedOn 2026-11-09 (SUP-2026-1142) is 11 days 8 hours before the run start 2026-11-20T08:00:00Z: 2 days 16 hours (2.7 days) short',
    );
    expect(stdout).toContain(
      'start at or after 2026-11-23T00:00:00Z, or use a notice announced on 2026-11-06 or earlier',
    );
    expect(stdout).toContain(
      '✖ notice-window  the run would start at 2026-11-20T08:00:00Z, 11 days 1 hour before the announced window',
    );
  });

  it('prints the decision as JSON', async () => {
    const { code, stdout } = await runMain(['plan', SANDBOX_EXAMPLE, '--at', '2026-12-01T11:50:00Z', '--json']);
    expect(code).toBe(3);
    const guard = JSON.parse(stdout).guard;
    expect(guard).toMatchObject({
      allowed: false,
      real: true,
      startAt: '2026-12-01T11:50:00Z',
      plannedEndAt: '2026-12-01T12:01:16Z',
    });
    expect(guard.reasons).toEqual([
      expect.stringMatching(
        /^notice-window: its planned end 2026-12-01T12:01:16Z .* is 1 minute after the announced window/,
      ),
    ]);
  });

  // Through the CLI: a sandbox scenario with a valid notice, judged on its arrivals.
  const announced = (phases: string): string =>
    `name: judged\ndescription: judged on its arrivals\ntarget:\n  environment: sandbox\n  baseUrl: https://sandbox.example.invalid\n${notice('2026-11-01')}phases:\n${phases}`;

  it('plans 200 phases of {100ms, 1 rpm} as the one request they add up to, and says so', async () => {
    const phases = Array.from({ length: 200 }, (_, i) => `  - { name: t${i}, duration: 100ms, rpm: 1 }\n`).join('');
    const { file } = workspace(announced(phases));
    const text = await runMain(['plan', file, '--at', '2026-12-01T09:00:00Z']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/total +20s +1\n/);
    expect(text.stdout).toContain(
      "199 phases t1, t2, t3, t4, t5, … plan no request (rate × duration < 1; the plan's arrivals run on across phases)",
    );
    expect(text.stdout).toContain(
      '  traffic (planned requests in sliding 60 s windows, each arrival counted once): peak 1 in a minute (from 0s); never above 200 rpm; never at 300 rpm\n',
    );
    const json = await runMain(['plan', file, '--at', '2026-12-01T09:00:00Z', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      requests: 1,
      guard: {
        allowed: true,
        traffic: { peakRpm: 1, peakMinuteStartMs: 0, longestAboveCoordinationRpm: null, longestAtSpikeRpm: null },
      },
    });
  });

  it('refuses ten repeats of 5 minutes at 300 rpm and 1 minute at 200: the dips do not reset the clock', async () => {
    const phases = Array.from(
      { length: 10 },
      (_, i) =>
        `  - { name: hot${i + 1}, duration: 5m, rpm: 300 }\n  - { name: dip${i + 1}, duration: 1m, rpm: 200 }\n`,
    ).join('');
    const { file } = workspace(announced(phases));
    const { code, stdout } = await runMain(['plan', file, '--at', '2026-12-01T09:00:00Z']);
    expect(code).toBe(3);
    expect(stdout).toContain('Guard: REFUSED');
    expect(stdout).toContain(
      'traffic (planned requests in sliding 60 s windows, each arrival counted once): peak 300 in a minute (from 0s); above 200 rpm for 59m19.8s at most (40s – 59m59.8s)',
    );
    expect(stdout).toContain(
      '✖ coordination   the plan sends more than 200 requests in the minute before each moment for 59m19.8s from 40s to 59m59.8s (phases hot1, dip1, hot2,',
    );
    expect(stdout).toContain('✖ envelope       the plan is outside the documented envelope');
    expect(stdout).toContain('it stays at 300 rpm for 59m');
  });

  it('allows the documented spike, 5 minutes at 300 rpm between 100 rpm phases, with no coordination', async () => {
    const { file } = workspace(
      announced(
        '  - { name: warm, duration: 2m, rpm: 100 }\n  - { name: spike, duration: 5m, rpm: 300 }\n  - { name: recover, duration: 2m, rpm: 100 }\n',
      ),
    );
    const { code, stdout } = await runMain(['plan', file, '--at', '2026-12-01T09:00:00Z']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      '✔ coordination   at most 4m59.6s above 200 rpm (2m30.2s – 7m29.8s, phases spike, recover): no coordination needed',
    );
    expect(stdout).toContain(
      '✔ envelope       inside the documented envelope (peak 300 rpm, at most 5m at 300 rpm (2m – 7m, phases spike, recover), maxInFlight 128)',
    );
  });

  // The loopback test is one function for mock and real targets, so a mock and the guard never disagree on what is
  // local.
  it.each(['http://0.0.0.0:9', 'http://localhost.:9', 'http://a.localhost:9', 'http://[::ffff:127.0.0.1]:9'])(
    'accepts a mock at %s as loopback',
    async (url) => {
      const { file } = workspace(
        `name: local\ndescription: a mock on this host\ntarget:\n  environment: mock\n  baseUrl: ${url}\nphases:\n  - { name: a, duration: 1m, rpm: 60 }\n`,
      );
      const { code, stdout } = await runMain(['plan', file]);
      expect(code).toBe(0);
      expect(stdout).toMatch(/✔ target +a mock on loopback \(http:\/\/\S+:9\/?\)/);
    },
  );

  it('refuses an --at without a zone with exit 2', async () => {
    const { code, stderr } = await runMain(['plan', SANDBOX_EXAMPLE, '--at', '2026-12-01T09:00:00']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      '--at: expected an ISO date-time with a zone, like 2026-12-07T09:00:00Z or 2026-12-07T10:00:00+01:00, or a date (00:00 UTC), got "2026-12-01T09:00:00" (no zone: add Z for UTC or an offset like +01:00)',
    );
  });
});

describe('loadproof run: a refused run sends nothing, the token request included', () => {
  const creds = (s: MockServer) => ({ LOADPROOF_CLIENT_ID: s.clientId, LOADPROOF_CLIENT_SECRET: s.clientSecret });
  it.each([
    {
      name: 'a sandbox target at a loopback URL, without the test switch (a child process)',
      scenario: (u: string) => sandboxAt(u, notice(daysAgo(20))),
      args: [] as string[],
      says: 'target: target.baseUrl http://127.0.0.1',
      spawn: true,
    },
    {
      name: 'a sandbox target at the mock in IPv4-mapped IPv6, [::ffff:127.0.0.1]',
      scenario: (u: string) => sandboxAt(u.replace('127.0.0.1', '[::ffff:127.0.0.1]'), notice(daysAgo(20))),
      args: [] as string[],
      says: 'is loopback, but target.environment is sandbox: a real environment is not on this machine',
    },
    {
      name: 'a sandbox run without a notice',
      scenario: (u: string) => sandboxAt(u),
      args: ['--allow-loopback-as-real'],
      says: 'notice: a sandbox run needs an advance notice and this scenario has none',
    },
    {
      name: 'a notice 13 days old',
      scenario: (u: string) => sandboxAt(u, notice(daysAgo(13))),
      args: ['--allow-loopback-as-real'],
      says: `notice: notice.announcedOn ${daysAgo(13)} (CASE-4242) is 13 days`,
    },
    {
      name: 'a notice whose window has closed',
      scenario: (u: string) =>
        sandboxAt(
          u,
          `${notice(daysAgo(30))}  window: { start: '${daysAgo(2)}T00:00:00Z', end: '${daysAgo(1)}T00:00:00Z' }\n`,
        ),
      args: ['--allow-loopback-as-real'],
      says: 'notice-window: its planned end',
    },
    {
      name: '6 minutes above 200 rpm without coordination',
      scenario: (u: string) =>
        sandboxAt(
          u,
          notice(daysAgo(20)),
          '  - { name: a, duration: 3m, rpm: 250 }\n  - { name: b, duration: 3m, fromRpm: 250, toRpm: 210 }\n',
        ),
      args: ['--allow-loopback-as-real'],
      says: 'coordination: the plan sends more than 200 requests in the minute before each moment for 5m16.218s from 48s to 6m4.218s (phases a, b), more than 5 minutes',
    },
    {
      name: 'retries whose worst case crosses 300 rpm',
      scenario: (u: string) =>
        sandboxAt(
          u,
          `${notice(daysAgo(20))}on429: { policy: retry, maxAttempts: 4 }\n`,
          '  - { name: a, duration: 1m, rpm: 100 }\n',
        ),
      args: ['--allow-loopback-as-real'],
      says: 'envelope: the plan is outside the documented envelope',
    },
    {
      name: 'maxInFlight above 128',
      scenario: (u: string) => sandboxAt(u, `${notice(daysAgo(20))}maxInFlight: 200\n`),
      args: ['--allow-loopback-as-real'],
      says: 'maxInFlight 200 is above 128 in flight',
    },
    {
      name: 'a time scale against a real environment',
      scenario: (u: string) => sandboxAt(u, notice(daysAgo(20))),
      args: ['--allow-loopback-as-real', '--time-scale', '20'],
      says: 'time-scale: --time-scale 20 against sandbox',
    },
  ])('$name → exit 3', async ({ scenario, args, says, spawn }) => {
    const s = (server = await startMockServer({ timeScale: 1 }));
    const { file, out } = workspace(scenario(s.url));
    const { code, stdout, stderr } = await (spawn === true ? runCli : runMain)(
      ['run', '--no-charts', file, '--out', out, ...args],
      creds(s),
    );
    expect(code).toBe(3);
    expect(stderr).toContain('loadproof: GUARD_REFUSED: refused before sending anything:');
    expect(stderr).toContain(says);
    expect(stdout).toBe('');
    const seen = s.stats().requests;
    expect(seen.token.received + seen.identification.received).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a real target without credentials with exit 2, before any request', async () => {
    const s = (server = await startMockServer({ timeScale: 1 }));
    const { file, out } = workspace(sandboxAt(s.url, notice(daysAgo(20))));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out, '--allow-loopback-as-real'], {
      LOADPROOF_CLIENT_ID: '',
      LOADPROOF_CLIENT_SECRET: '',
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'no credentials for the sandbox target: set $LOADPROOF_CLIENT_ID and $LOADPROOF_CLIENT_SECRET (names from target.credentials), or pass --credentials <file>',
    );
    expect(s.stats().requests.token.received).toBe(0);
  });

  it('lets an announced sandbox run through, in real time, and records the decision in summary.json', async () => {
    const s = (server = await startMockServer({ timeScale: 1 }));
    const { file, out } = workspace(sandboxAt(s.url, notice(daysAgo(20))));
    const { code, stderr } = await runMain(
      ['run', '--no-charts', file, '--out', out, '--allow-loopback-as-real'],
      creds(s),
    );
    // 4 requests cannot decide a p95: inconclusive, but everything was sent and measured.
    expect(code).toBe(5);
    expect(stderr).toMatch(/Guard: ALLOWED for a run starting \S+ against sandbox/);
    expect(stderr).toContain('✔ target         sandbox at http://127.0.0.1');
    expect(s.stats().requests.token.received).toBe(1);
    expect(s.stats().requests.identification.received).toBe(4);
    const [folder] = runFolders(out);
    const summary = JSON.parse(readFileSync(join(out, folder!, 'summary.json'), 'utf8'));
    expect(summary.environment).toBe('sandbox');
    // 4 s at 60 rpm plans 4 requests: the most in any minute is 4.
    expect(summary.guard).toMatchObject({
      allowed: true,
      real: true,
      traffic: {
        peakRpm: 4,
        peakMinuteStartMs: 0,
        longestAboveCoordinationRpm: null,
        longestAtSpikeRpm: null,
        worstCaseFactor: 1,
        maxInFlight: 128,
      },
    });
    expect(summary.guard.checks.map((c: { rule: string; status: string }) => `${c.rule}:${c.status}`)).toEqual([
      'target:ok',
      'time-scale:ok',
      'notice:ok',
      'notice-window:not-applicable',
      'coordination:ok',
      'envelope:ok',
    ]);
  });
});
