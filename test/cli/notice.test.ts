/** `loadproof notice`: the advance notice for support, and the guard accepting the run it announces. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';

const SANDBOX = readFileSync(fileURLToPath(new URL('../../scenarios/sandbox-burst.yaml', import.meta.url)), 'utf8');
/** The example without its notice: what a user has before announcing the test. */
const UNANNOUNCED = SANDBOX.replace(/^notice:\n(?: .*\n)+/m, '');
/** The scenario block `notice` prints for the user, its references filled in as support would give them. */
const blockOf = (stdout: string): string =>
  stdout
    .slice(stdout.indexOf('notice:\n'), stdout.indexOf('\n\nNothing was sent'))
    .replace(/<the support case id[^>]*>/g, 'SUP-2026-2001');

describe('loadproof notice', () => {
  it('writes notice.md, the text to send alone; the user is told where it is and given the block; the guard accepts the run it announces', async () => {
    expect(UNANNOUNCED).not.toContain('notice:');
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const out = join(dir, 'notice.md');
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      '2026-12-15T09:00:00Z',
      '--announce-on',
      '2026-11-26',
      '--out',
      out,
    ]);
    expect(drafted.code).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('- Environment: sandbox (https://sandbox.example.invalid)');
    // The default start window: the run's length (11m16s) to the quarter hour.
    expect(md).toContain(
      '- Start: between 2026-12-15 09:00:00 UTC and 2026-12-15 09:15:00 UTC (a start window of 15m).',
    );
    expect(md).toContain('- All traffic falls between 2026-12-15 09:00:00 UTC and 2026-12-15 09:26:16 UTC.');
    expect(md).toContain('- Peak: 200 requests in a minute');
    expect(md).toContain('- Requests in all: 1,600 (429s are not retried).');
    expect(md).toContain('- Above 200 requests a minute for more than 5 minutes: no.');
    expect(md).toMatch(/burst +\+3m +\+8m +200 rpm +1,000/);
    expect(md).not.toContain('Sustained rate');
    // notice.md is what support reads: no instructions to the user, no scenario block.
    expect(md).not.toMatch(/notice:\n|put this in the scenario|loadproof (plan|run|notice)/);
    expect(drafted.stdout).toContain(`Wrote ${out}: the text to send support`);
    expect(drafted.stdout).toContain('Sent on 2026-11-26, it allows a start from 2026-12-10T00:00:00Z');
    expect(drafted.stdout).not.toContain('## Schedule');
    // Before the notice, the guard refuses the run; with the drafted block in place, it accepts it.
    expect((await runMain(['plan', file, '--at', '2026-12-15T09:00:00Z'])).code).toBe(3);
    writeFileSync(file, `${UNANNOUNCED}${blockOf(drafted.stdout)}\n`);
    const allowed = await runMain(['plan', file, '--at', '2026-12-15T09:00:00Z']);
    expect(allowed.stdout).toContain('Guard: ALLOWED');
    expect(allowed.code).toBe(0);
    // After the start window, it refuses.
    expect((await runMain(['plan', file, '--at', '2026-12-15T09:20:00Z'])).code).toBe(3);
  });

  it('--window: a start 30 minutes late is inside a 45-minute window; the guard accepts any start inside it and refuses outside', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const out = join(dir, 'notice.md');
    const at = '2026-12-15T09:00:00Z';
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      at,
      '--announce-on',
      '2026-11-26',
      '--window',
      '45m',
      '--out',
      out,
    ]);
    expect(drafted.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain(
      '- Start: between 2026-12-15 09:00:00 UTC and 2026-12-15 09:45:00 UTC (a start window of 45m).',
    );
    writeFileSync(file, `${UNANNOUNCED}${blockOf(drafted.stdout)}\n`);
    const planAt = async (when: string) => (await runMain(['plan', file, '--at', when])).code;
    expect(await planAt('2026-12-15T09:30:00Z')).toBe(0);
    expect(await planAt('2026-12-15T09:45:00Z')).toBe(0);
    expect(await planAt('2026-12-15T08:59:00Z')).toBe(3);
    const late = await runMain(['plan', file, '--at', '2026-12-15T09:46:00Z']);
    expect(late.code).toBe(3);
    expect(late.stdout).toContain('start between 2026-12-15T09:00:00Z and 2026-12-15T09:45:00Z');
  });

  it('--window, --contact and --client-id are checked: exit 2 naming the flag, the value and what is expected; nothing written', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const out = join(dir, 'notice.md');
    const base = ['notice', file, '--at', '2026-12-15T09:00:00Z', '--announce-on', '2026-11-26', '--out', out];
    for (const [flag, value, expected] of [
      ['--window', 'soon', '--window: expected a duration such as 10m or 1h30m'],
      ['--window', '30s', '--window: expected a start window from 1m to 24h, such as 45m or 2h, got "30s"'],
      ['--window', '25h', '--window: expected a start window from 1m to 24h, such as 45m or 2h, got "25h"'],
      ['--contact', 'a\nb', '--contact: expected a name and an address on one line'],
      ['--client-id', 'has space', '--client-id: expected the OAuth client_id, 1 to 200 visible ASCII characters'],
    ] as const) {
      const { code, stderr } = await runMain([...base, flag, value]);
      expect(code, `${flag} ${value}`).toBe(2);
      expect(stderr).toContain(expected);
    }
    // The client secret given as the client_id: refused, and not shown.
    const secret = 'notice-secret-0123456789';
    const leaked = await runMain([...base, '--client-id', secret], { LOADPROOF_CLIENT_SECRET: secret });
    expect(leaked.code).toBe(2);
    expect(leaked.stderr).toContain('--client-id: the value given is the client secret (not shown)');
    expect(leaked.stderr + leaked.stdout).not.toContain(secret);
    expect(existsSync(out)).toBe(false);
  });

  it('a stepped test: its schedule, what is sent, the predicted 429s, contact, client_id and the coordination rule', async () => {
    const steps = readFileSync(fileURLToPath(new URL('../../scenarios/capacity-step.yaml', import.meta.url)), 'utf8');
    const sandbox = `${steps}target: { environment: sandbox, baseUrl: 'https://sandbox.example.invalid' }\n`;
    const { file, dir } = scenarioWorkspace(sandbox);
    const out = join(dir, 'notice.md');
    const secret = 'stepped-secret-0123456789';
    const drafted = await runMain(
      [
        'notice',
        file,
        '--at',
        '2027-01-15T09:00:00Z',
        '--announce-on',
        '2026-11-26',
        '--window',
        '45m',
        '--contact',
        'Jane Roe <jane.roe@example.com>',
        '--client-id',
        'acme-loadtest-01',
        '--out',
        out,
      ],
      { LOADPROOF_CLIENT_SECRET: secret },
    );
    expect(drafted.code).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('Shape: stepped: 100 → 300 rpm in 9 steps of 25 rpm, 2m each.');
    expect(md).toMatch(/step-100 +\+0s +\+2m +100 rpm +200\n/);
    expect(md).toMatch(/step-300 +\+16m +\+18m +300 rpm +600\n/);
    expect(md).toMatch(/total +\+18m +3,600\n/);
    expect(md).toContain('- Peak: 300 requests in a minute');
    expect(md).toContain('- In flight at most: 128 requests.');
    expect(md).toContain(
      'a synthetic clinical note with made-up PHI (no real patient data; notes of 400–850 characters',
    );
    expect(md).toContain('x-loadproof-seq');
    expect(md).toMatch(/the first 429 about 10m1s after the start, in step-225/);
    expect(md).toContain('- step-300: about');
    expect(md).toContain('- Client ID: acme-loadtest-01');
    expect(md).toContain('- Contact: Jane Roe <jane.roe@example.com>');
    expect(md).toContain('- Coordination reference: none yet; this test needs one');
    expect(md).toMatch(/Above 200 requests a minute for more than 5 minutes: yes/);
    expect(md).not.toContain(secret);
    expect(drafted.stdout).toContain('coordination:\n  reference: <the support case id for traffic above 200 rpm>');
    // Without --client-id, no client_id: it is opt-in.
    await runMain(['notice', file, '--at', '2027-01-15T09:00:00Z', '--announce-on', '2026-11-26', '--out', out]);
    expect(readFileSync(out, 'utf8')).not.toContain('Client ID');
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
    const { file, dir } = scenarioWorkspace(
      `${long}limits: { burstRpm: 300, burstMinutes: 12, spikeRpm: 300, spikeMinutes: 12, reference: RAISED-1 }\n`,
    );
    const out = join(dir, 'notice.md');
    const { code, stdout } = await runMain([
      'notice',
      file,
      '--at',
      '2027-01-15T09:00:00Z',
      '--announce-on',
      '2026-11-26',
      '--out',
      out,
    ]);
    expect(readFileSync(out, 'utf8')).toMatch(
      /Above 200 requests a minute for more than 5 minutes: yes \(more than 200 requests a minute from \+\d+s? to \+10m after the start, phase high\)/,
    );
    expect(readFileSync(out, 'utf8')).toContain(
      'the limits raised in RAISED-1 (100 rpm sustained, 300 rpm for 12 minutes)',
    );
    expect(stdout).toContain('coordination:\n  reference: <the support case id for traffic above 200 rpm>');
    expect(stdout).not.toContain('the guard would refuse');
    expect(code).toBe(0);
    writeFileSync(file, `${readFileSync(file, 'utf8')}${blockOf(stdout)}\n`);
    expect((await runMain(['plan', file, '--at', '2027-01-15T09:00:00Z'])).code).toBe(0);
  });

  it('applies the 14-day rule to the sandbox only, and refuses a start in the past', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED.replace('environment: sandbox', 'environment: production'));
    const production = await runMain(
      ['notice', file, '--at', '2026-11-28T09:00:00Z', '--announce-on', '2026-11-26', '--out', join(dir, 'n.md')],
      {},
    );
    expect(production.stdout).toContain(
      "The 14-day notice rule is the sandbox's; for production, only the coordination rule applies.",
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
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
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
    const args = {
      scenario: file,
      at: '2027-03-01T10:00:00Z',
      json: true,
      out: join(dir, 'notice.md'),
      _: [],
      $0: 'loadproof',
    } as never;
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
    expect(JSON.parse(out)).toMatchObject({
      startAllowed: true,
      startBy: '2027-03-15T00:15:00Z',
      windowEnd: '2027-03-15T00:26:16Z',
    });
  });

  it('a coordinated run: times in whole seconds, and the stretch above 200 rpm ends within the stated length', async () => {
    const capacity = readFileSync(
      fileURLToPath(new URL('../../scenarios/capacity-step.yaml', import.meta.url)),
      'utf8',
    );
    const sandbox = capacity.replace(
      /^description: .*$/m,
      "$&\ntarget: { environment: sandbox, baseUrl: 'https://sandbox.example.invalid' }",
    );
    const { file, dir } = scenarioWorkspace(sandbox);
    const out = join(dir, 'notice.md');
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      '2026-12-15T09:00:00Z',
      '--announce-on',
      '2026-11-26',
      '--out',
      out,
    ]);
    expect(drafted.code).toBe(0);
    const md = readFileSync(out, 'utf8');
    // Support reads seconds: no milliseconds anywhere.
    expect(md).not.toMatch(/\d\.\d+s\b/);
    const length = /- Length: (\d+)m(\d+)s from its start/.exec(md);
    const above = /- Above 200 requests a minute for more than 5 minutes: yes \(.* to \+?(\d+)m(\d*)s?\b/.exec(md);
    expect(length, md).not.toBeNull();
    expect(above, md).not.toBeNull();
    const seconds = (m: RegExpExecArray): number => Number(m[1]) * 60 + Number(m[2] || 0);
    expect(seconds(above!)).toBeLessThanOrEqual(seconds(length!));
  });

  it('the block carries the latest start: a scenario edited shorter is still refused after the announced start window', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const out = join(dir, 'notice.md');
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      '2026-12-15T09:00:00Z',
      '--announce-on',
      '2026-11-26',
      '--out',
      out,
    ]);
    expect(drafted.code).toBe(0);
    expect(blockOf(drafted.stdout)).toContain("startBy: '2026-12-15T09:15:00Z'");
    // The recovery phase dropped: the run ends well inside the window even when started after the start window.
    const shorter = UNANNOUNCED.replace(/ {2}- name: recovery\n(?: {4}.*\n)+/, '');
    expect(shorter).not.toContain('name: recovery');
    writeFileSync(file, `${shorter}${blockOf(drafted.stdout)}\n`);
    expect((await runMain(['plan', file, '--at', '2026-12-15T09:14:00Z'])).code).toBe(0);
    const late = await runMain(['plan', file, '--at', '2026-12-15T09:17:00Z']);
    expect(late.stdout).toMatch(
      /notice-window +.*after the latest start announced \(notice.window.startBy 2026-12-15T09:15:00Z\)/,
    );
    expect(late.code).toBe(3);
  });
});
