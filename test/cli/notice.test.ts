/** `loadproof notice`: the advance notice for support, and the guard accepting the run it announces. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';

const SANDBOX = readFileSync(fileURLToPath(new URL('../../scenarios/sandbox-burst.yaml', import.meta.url)), 'utf8');
/** The example without its notice: what a user has before announcing the test. */
const UNANNOUNCED = SANDBOX.replace(/^notice:\n(?: .*\n)+/m, '');

describe('loadproof notice', () => {
  it('drafts the notice — window, rates, requests, coordination, the earliest start — and the guard accepts the run it announces', async () => {
    expect(UNANNOUNCED).not.toContain('notice:');
    const { file } = scenarioWorkspace(UNANNOUNCED);
    const drafted = await runMain(['notice', file, '--at', '2026-12-15T09:00:00Z', '--announce-on', '2026-11-26']);
    expect(drafted.code).toBe(0);
    const text = drafted.stdout;
    expect(text).toContain('Environment:        sandbox (https://sandbox.example.invalid)');
    expect(text).toContain(
      'Window (UTC):       2026-12-15T09:00:00Z – 2026-12-15T09:30:00Z (planned end 2026-12-15T09:11:16Z',
    );
    expect(text).toContain('Peak rate:          200 requests a minute');
    expect(text).toContain('Sustained rate:     100 requests a minute, for 6m in all');
    expect(text).toContain('Requests in total:  1,600 (no retries)');
    expect(text).toContain('Coordination:       not needed');
    expect(text).toContain('Sent on 2026-11-26, this notice allows a start from 2026-12-10T00:00:00Z');
    // Before the notice, the guard refuses the run; with the drafted block in place, it accepts it.
    expect((await runMain(['plan', file, '--at', '2026-12-15T09:00:00Z'])).code).toBe(3);
    const block = text
      .slice(text.indexOf('notice:\n'), text.indexOf('\n\nNothing was sent'))
      .replace('<the support case id>', 'SUP-2026-2001');
    writeFileSync(file, `${UNANNOUNCED}${block}\n`);
    const allowed = await runMain(['plan', file, '--at', '2026-12-15T09:00:00Z']);
    expect(allowed.stdout).toContain('Guard: ALLOWED');
    expect(allowed.code).toBe(0);
    // Outside the window, or before the 14 days are up, it refuses.
    expect((await runMain(['plan', file, '--at', '2026-12-15T09:20:00Z'])).code).toBe(3);
  });

  it('says when the start is too early for a notice sent that day (exit 3)', async () => {
    const { file } = scenarioWorkspace(UNANNOUNCED);
    const { code, stdout } = await runMain([
      'notice',
      file,
      '--at',
      '2026-12-09T23:59:00Z',
      '--announce-on',
      '2026-11-26',
    ]);
    expect(code).toBe(3);
    expect(stdout).toContain(
      'The planned start 2026-12-09T23:59:00Z is TOO EARLY: 1m before the earliest allowed; pick a start from 2026-12-10T00:00:00Z.',
    );
  });

  it('says when the coordination rule applies, and gives its block too; with both, the guard accepts the run', async () => {
    const long = UNANNOUNCED.replace(
      /^phases:\n(?: {2}.*\n)+/m,
      'phases:\n  - { name: high, duration: 10m, rpm: 250 }\n',
    ).replace(/^limits:.*$/m, '');
    const { file } = scenarioWorkspace(
      `${long}limits: { burstRpm: 300, burstMinutes: 12, spikeRpm: 300, spikeMinutes: 12, reference: RAISED-1 }\n`,
    );
    const { code, stdout } = await runMain([
      'notice',
      file,
      '--at',
      '2027-01-15T09:00:00Z',
      '--announce-on',
      '2026-11-26',
    ]);
    expect(stdout).toMatch(
      /Coordination: +needed — the plan sends more than 200 requests in the minute before each moment for 9m/,
    );
    expect(stdout).toContain('coordination:\n  reference: <the support case id for traffic above 200 rpm>');
    expect(stdout).not.toContain('the guard would refuse');
    expect(code).toBe(0);
    const blocks = stdout
      .slice(stdout.indexOf('notice:\n'), stdout.indexOf('\n\nNothing was sent'))
      .replace(/<the support case id[^>]*>/g, 'SUP-2026-3003');
    writeFileSync(file, `${readFileSync(file, 'utf8')}${blocks}\n`);
    expect((await runMain(['plan', file, '--at', '2027-01-15T09:00:00Z'])).code).toBe(0);
  });

  it('applies the 14-day rule to the sandbox only, and refuses a start in the past', async () => {
    const { file } = scenarioWorkspace(UNANNOUNCED.replace('environment: sandbox', 'environment: production'));
    const production = await runMain(
      ['notice', file, '--at', '2026-11-28T09:00:00Z', '--announce-on', '2026-11-26'],
      {},
    );
    expect(production.stdout).toContain(
      "The 14-day notice rule is the sandbox's; for production, only the coordination rule (above) applies.",
    );
    expect(production.stdout).not.toContain('TOO EARLY');
    const past = await runMain(['notice', file, '--at', '2020-01-20T09:00:00Z']);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--at 2020-01-20T09:00:00Z: that is in the past');
  });

  it('refuses a mock scenario and a bad date, sending nothing (exit 2)', async () => {
    const { file } = scenarioWorkspace(
      'name: m\ndescription: d\ntarget: { environment: mock }\nphases: [{ name: a, duration: 1m, rpm: 60 }]\n',
    );
    const mock = await runMain(['notice', file, '--at', '2026-12-15']);
    expect(mock.code).toBe(2);
    expect(mock.stderr).toContain(
      'target.environment is mock; an advance notice is for sandbox and production load tests',
    );
    const { file: sandbox } = scenarioWorkspace(UNANNOUNCED);
    const bad = await runMain(['notice', sandbox, '--at', '2026-12-15', '--announce-on', '26/11/2026']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--announce-on: expected a date like 2026-11-26 (UTC), got "26/11/2026"');
  });
});

describe('loadproof notice, its clock injected', () => {
  it('counts the 14 days from the day it is run when no --announce-on is given', async () => {
    const { runNotice } = await import('../../src/cli/commands/notice.js');
    const { SecretMask } = await import('../../src/core/redact.js');
    const { file } = scenarioWorkspace(UNANNOUNCED);
    let out = '';
    const io = {
      stdout: (t: string) => (out += t),
      stderr: () => {},
      stdoutData: (t: string) => (out += t),
      secrets: new SecretMask(),
      env: {},
      argv: [],
      cwd: '.',
      stderrIsTTY: false,
      stderrColumns: () => undefined,
      readStdin: async () => '',
      waitForSignal: () => new Promise<never>(() => {}),
    };
    const args = { scenario: file, at: '2027-03-01T10:00:00Z', json: true, _: [], $0: 'loadproof' } as never;
    // Run at 08:00 UTC on 1 March 2027: the notice is sent on the 1st, and allows a start from 00:00 UTC on the 15th.
    expect(await runNotice(args, io, Date.parse('2027-03-01T08:00:00Z'))).toBe(3);
    const notice = JSON.parse(out);
    expect(notice).toMatchObject({
      announcedOn: '2027-03-01',
      earliestStart: '2027-03-15T00:00:00Z',
      start: '2027-03-01T10:00:00Z',
      startAllowed: false,
      guard: { allowed: false },
    });
    expect(notice.guard.reasons.join('\n')).toContain('notice: notice.announcedOn 2027-03-01');
    out = '';
    expect(
      await runNotice(
        { ...(args as object), at: '2027-03-15T00:00:00Z' } as never,
        io,
        Date.parse('2027-03-01T08:00:00Z'),
      ),
    ).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ startAllowed: true, windowEnd: '2027-03-15T00:30:00Z' });
  });
});
