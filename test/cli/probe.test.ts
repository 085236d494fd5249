/**
 * `loadproof probe`: a closed-loop saturation probe through the built CLI against the real
 * mock on loopback. It steps the connections up, reports each step, stops at the first step with 429s,
 * says that its latency is not a user's, and is judged by the guard before anything is sent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { MOCK_TOKEN_PREFIX } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { serversFor } from '../helpers/servers.js';
import { tokenAnswer } from '../helpers/stub.js';

const K = 20;
const { mock, stub } = serversFor(K);

const scenarioAt = (url: string, environment = 'mock', extra = ''): string =>
  `name: probed\ndescription: a probe\ntarget: { environment: ${environment}, baseUrl: "${url}" }\nphases:\n  - { name: one, duration: 1m, rpm: 60 }\n${extra}`;

describe('loadproof probe', () => {
  it('steps the connections up against the mock, reports each step and stops at the first step with 429s', async () => {
    // The tight profile: a bucket of 61 requests above 30 rpm, and 16 in flight with 8 queued.
    const s = await mock({ profile: 'tight' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url));
    const { code, stdout, stderr } = await runMain([
      'probe',
      file,
      '--endpoint',
      'identification',
      '--connections',
      '1,2,4,8,16,32',
      '--step',
      '20s',
      '--time-scale',
      String(K),
      '--out',
      out,
    ]);
    expect(code, stderr).toBe(0);
    const [folder, ...more] = runFolders(out);
    expect(more).toEqual([]);
    // Named by the endpoint probed: two probes of one scenario, one per endpoint, are told apart.
    expect(folder).toMatch(/^\d{8}T\d{6}Z-probe-identification-probed$/);
    const dir = join(out, folder!);
    const report = JSON.parse(readFileSync(join(dir, 'probe.json'), 'utf8'));
    const steps: any[] = report.result.steps;
    // At its ~1 s answers, 1 and 2 connections (about 55 and 115 rpm) use 36 of the bucket's 61 requests in
    // two steps of 20 s: no 429 (fewer still on a slow machine). 32 connections pass the 24 the mock holds: 429s.
    expect(report.result.endedBy).toBe('first 429s');
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps.map((st) => st.connections)).toEqual([1, 2, 4, 8, 16, 32].slice(0, steps.length));
    expect(steps.slice(0, -1).every((st) => st.http429 === 0)).toBe(true);
    expect(steps.at(-1).http429).toBeGreaterThan(0);
    // No step sends more than the guard judged: the cap (6,000 rpm, 2,000 a wall second at k = 20) over its 1 s of wall
    // time.
    for (const st of steps) {
      expect(st.sent).toBeLessThanOrEqual(2000);
      expect(st.answered).toBe(Object.values(st.status as Record<string, number>).reduce((a, b) => a + b, 0));
      expect(st.sent).toBeGreaterThanOrEqual(st.answered + st.timeouts + st.errors);
    }
    // The mock saw every request the probe counted as answered, and none it did not send.
    const seen = s.stats().requests.identification;
    const sum = (f: (st: any) => number): number => steps.reduce((n, st) => n + f(st), 0);
    expect(seen.received).toBeGreaterThanOrEqual(sum((st) => st.answered + st.timeouts));
    expect(seen.received).toBeLessThanOrEqual(sum((st) => st.sent));
    expect(seen.byStatus['429'] ?? 0).toBeGreaterThanOrEqual(steps.at(-1).http429);
    // One token per step: a probe may outlast a token.
    expect(s.stats().requests.token.received).toBe(steps.length);
    expect(stdout).toContain(`stopped at the first step with 429s, at ${steps.at(-1).connections} connections`);
    expect(stdout).toContain(
      `last step without a 429 or an error: ${steps.at(-2).connections} connections, ${steps.at(-2).okRpm} rpm of 2xx`,
    );
    expect(stdout).toContain('where the first 429s come depends on how long each step lasts');
    for (const text of [stdout, readFileSync(join(dir, 'probe.md'), 'utf8')]) {
      expect(text).toContain('Closed-loop latency is not the latency a user experiences');
      expect(text).toContain('scenarios/capacity-step.yaml');
    }
    for (const text of [
      stdout,
      stderr,
      readFileSync(join(dir, 'probe.json'), 'utf8'),
      readFileSync(join(dir, 'probe.md'), 'utf8'),
    ]) {
      expect(text.includes(MOCK_TOKEN_PREFIX)).toBe(false);
      expect(text.includes(s.clientSecret)).toBe(false);
    }
  });

  it('keeps the steps it measured when a later token call fails: probe.json written, exit 4', async () => {
    const s = await stub({ token: (n) => (n === 1 ? tokenAnswer(n) : { status: 401, body: { error: 'revoked' } }) });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, 'mock', 'timeout: 2s\n'));
    const { code, stdout } = await runMain([
      'probe',
      file,
      '--endpoint',
      'identification',
      '--connections',
      '1,2',
      '--step',
      '1s',
      '--max-rpm',
      '120',
      '--out',
      out,
    ]);
    expect(code).toBe(4);
    const report = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'probe.json'), 'utf8'));
    expect(report.result).toMatchObject({ endedBy: 'token failed' });
    expect(report.result.steps.map((st: any) => st.connections)).toEqual([1]);
    expect(report.result.steps[0].ok).toBeGreaterThan(0);
    expect(stdout).toContain('stopped after the step at 1 connection: the token call before the next step failed');
    expect(s.counts.token).toBe(2);
  });

  it('is refused by the guard like any run: a sandbox probe without an advance notice sends nothing (exit 3)', async () => {
    const s = await mock();
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, 'sandbox'));
    const { code, stderr } = await runMain(['probe', file, '--allow-loopback-as-real', '--out', out], {
      LOADPROOF_CLIENT_ID: s.clientId,
      LOADPROOF_CLIENT_SECRET: s.clientSecret,
    });
    expect(code).toBe(3);
    expect(stderr).toContain('GUARD_REFUSED');
    expect(s.stats().requests.token.received).toBe(0);
    expect(s.stats().requests.obfuscation.received).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it.each([
    [
      "on identification, a cap above the spec's 300 rpm",
      ['--endpoint', 'identification'],
      'envelope: the plan is outside the documented envelope',
    ],
    ['on obfuscation (no envelope of its own), 7 steps of a minute above 200 rpm', ['--step', '1m'], 'coordination:'],
  ])(
    'judges its worst case, the cap held for every step, as a run: %s (exit 3, nothing sent)',
    async (_what, args, message) => {
      const s = await mock();
      const { file, out } = scenarioWorkspace(
        scenarioAt(s.url, 'sandbox', 'notice: { announcedOn: 2026-01-01, reference: SUP-1 }\n'),
      );
      const { code, stderr } = await runMain(['probe', file, ...args, '--allow-loopback-as-real', '--out', out], {
        LOADPROOF_CLIENT_ID: s.clientId,
        LOADPROOF_CLIENT_SECRET: s.clientSecret,
      });
      expect(code, stderr).toBe(3);
      expect(stderr).toContain(message);
      expect(s.stats().requests.token.received).toBe(0);
    },
  );

  it.each([
    ['connections that go down', ['--connections', '4,2'], '--connections: expected counts that go up, got "4,2"'],
    [
      'more connections than maxInFlight',
      ['--connections', '1,256'],
      "--connections: 256 is more than the scenario's maxInFlight of 128",
    ],
    ['an option without its value', ['--connections'], 'Not enough arguments following: connections'],
    ['a step of no time', ['--step', '0s'], '--step: expected a duration from 1s to 30m, like 30s, got "0s"'],
    [
      'a cap under a request a second per connection',
      ['--connections', '1,64', '--max-rpm', '600'],
      '--max-rpm: 600 is under one request a second (of wall time) per connection at 64 connections',
    ],
  ])('refuses %s with exit 2, naming the option, and sends nothing', async (_what, args, message) => {
    const s = await mock();
    const { file, out } = scenarioWorkspace(scenarioAt(s.url));
    const { code, stderr } = await runMain(['probe', file, ...args, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(s.stats().requests.token.received).toBe(0);
  });
});
