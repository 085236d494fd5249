/**
 * Loose ends, through the built CLI: the mock's audience, --metrics-host, what the
 * end of a run prints after a failed write, payload.source links, notice near year 9999, the strict
 * grammar of numbers and durations, and scenario files that are not UTF-8.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace, startCli } from '../helpers/cli.js';
import { scenarioAt } from '../helpers/reconcile.js';
import { serversFor } from '../helpers/servers.js';

const K = 20;
const { mock } = serversFor(K);

describe('the audience: the base URL exactly (spec), whatever the scenario spells', () => {
  it('a baseUrl with a trailing slash still gets its token (the audience sent is the base URL without it)', async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(`${s.url}/`, '  - { name: steady, duration: 10s, rpm: 60 }\n'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    // A status, not digits inside a number: the ephemeral port (34039) once contained 403.
    expect(stderr).not.toMatch(/\b403\b/);
    expect(code).toBe(0);
    expect(s.stats().requests.token.received).toBe(1);
    expect(runFolders(out)).toHaveLength(1);
  });
});

describe('--metrics-host: never every interface by accident', () => {
  const tiny =
    'name: w\ndescription: d\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n';

  it.each([
    [''],
    [' '],
    ['\t'],
    ['0'],
    ['00'],
    ['127.1'],
    ['0x7f000001'],
    ['2130706433'],
    ['0.0'],
    ['[::] '],
    [' 0.0.0.0'],
    ['[0.0.0.0]'],
    ['::]'],
    ['a b'],
    ['*'],
    ['127.0.0.1:9464'],
    ['http://127.0.0.1'],
  ])('refuses %j with exit 2, before the run folder or any request', async (host) => {
    const { file, out } = scenarioWorkspace(tiny);
    const { code, stderr } = await runMain(['run', file, '--out', out, '--metrics-port', '0', '--metrics-host', host]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--metrics-host ${JSON.stringify(host)}: `);
    expect(stderr).toContain(
      'expected an IPv4 address like 127.0.0.1 or 0.0.0.0, an IPv6 address like ::1 or [::], or a host name',
    );
    expect(existsSync(out)).toBe(false);
  });

  it.each([['127.0.0.1'], ['::1'], ['[::1]'], ['localhost']])(
    'serves on loopback %s without a warning',
    async (host) => {
      const { file, out } = scenarioWorkspace(tiny);
      const { code, stderr } = await runMain([
        'run',
        '--no-charts',
        file,
        '--time-scale',
        String(K),
        '--out',
        out,
        '--metrics-port',
        '0',
        '--metrics-host',
        host,
      ]);
      expect([0, 5]).toContain(code);
      expect(stderr).toMatch(/metrics: http:\/\/(127\.0\.0\.1|\[::1\]):\d+\/metrics/);
      expect(stderr).not.toContain('WARNING');
    },
  );

  // Listening on every interface for the few seconds of a tiny run: nothing is sent anywhere but loopback.
  it.each([['0.0.0.0'], ['::'], ['[::]']])(
    'says loudly on stderr that %s serves /metrics on every interface, and what it exposes',
    async (host) => {
      const { file, out } = scenarioWorkspace(tiny);
      const { code, stderr } = await runMain([
        'run',
        '--no-charts',
        file,
        '--time-scale',
        String(K),
        '--out',
        out,
        '--metrics-port',
        '0',
        '--metrics-host',
        host,
      ]);
      expect([0, 5]).toContain(code);
      expect(stderr).toContain('loadproof: WARNING: --metrics-host: ');
      expect(stderr).toContain(
        "listens on EVERY network interface of this host: anyone who can reach it can read this run's live metrics",
      );
      expect(stderr).toContain('without authentication or TLS');
    },
  );
});

describe('after a failed write, the end of a run names only files that were written', () => {
  // summary.json is written under a temporary name, then renamed: a folder in the way of that name makes the
  // write fail (EISDIR) as a full disk would, without one.
  const blockSummary = (dir: string): void => void mkdirSync(join(dir, 'summary.json.partial'), { recursive: true });

  it.each([[false], [true]])(
    'run (--json %s): no "summary:" path and no evidence line for a summary.json never written; exit 4',
    async (json) => {
      const s = await mock({ profile: 'zero' });
      const { dir, file } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 30s, rpm: 120 }\n'));
      const runDir = join(dir, 'run');
      // A --run-dir must be new or empty when the run starts (a run never writes among files it did not make): the way
      // is blocked once the run has made its folder (its events file is opened before the first arrival), seconds
      // before the end.
      const running = runMain([
        'run',
        '--no-charts',
        file,
        '--time-scale',
        String(K),
        '--run-dir',
        runDir,
        ...(json ? ['--json'] : []),
      ]);
      const blocked = new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (!existsSync(join(runDir, 'events.ndjson'))) return;
          clearInterval(poll);
          blockSummary(runDir);
          resolve();
        }, 5);
      });
      const { code, stdout, stderr } = await running;
      await blocked;
      expect(code).toBe(4);
      expect(existsSync(join(runDir, 'summary.json'))).toBe(false);
      const printed = stdout + stderr;
      expect(printed).not.toContain(`summary: ${join(runDir, 'summary.json')}`);
      expect(printed).not.toContain('evidence:');
      expect(printed).not.toContain('and in summary.json');
      expect(stderr).toContain(`loadproof: RUN_FAILED: could not write ${join(runDir, 'summary.json')} (`);
      expect(stderr).toContain('a folder is in the way');
      if (!json)
        expect(stdout).toContain(
          'summary: NOT WRITTEN (summary.json could not be written: see below); the table above is the judgement',
        );
      // What was written is still there and named: the events, whole.
      expect(readFileSync(join(runDir, 'events.ndjson'), 'utf8').split('\n').filter(Boolean)).toHaveLength(60);
    },
  );

  it("report: a summary.json that could not be rewritten is not printed as the judgement's file; exit 4", async () => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(scenarioAt(s.url, '  - { name: steady, duration: 30s, rpm: 120 }\n'));
    expect((await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out])).code).toBe(0);
    const runDir = join(out, runFolders(out)[0]!);
    blockSummary(runDir);
    const { code, stdout, stderr } = await runMain(['report', '--no-charts', runDir]);
    expect(code).toBe(4);
    expect(stdout).not.toContain(`summary: ${join(runDir, 'summary.json')}`);
    expect(stdout).not.toContain('evidence:');
    expect(stdout).toContain('summary: NOT WRITTEN');
    expect(stderr).toContain(`could not write ${join(runDir, 'summary.json')} (`);
    expect(stderr).toContain('a folder is in the way');
  });
});

describe('payload.source: never a link out of its folder', () => {
  it('plan and run refuse a .txt link out of the folder with exit 2, naming it, and send nothing', async () => {
    const s = await mock({ profile: 'zero' });
    const { dir, file, out } = scenarioWorkspace(
      scenarioAt(s.url, '  - { name: steady, duration: 10s, rpm: 60 }\n', 'payload:\n  source: notes\n'),
    );
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'a.txt'), 'Seen by Dr Smith.');
    symlinkSync('/etc/passwd', join(dir, 'notes', 'b.txt'));
    for (const args of [
      ['plan', file],
      ['run', file, '--out', out],
    ]) {
      const { code, stdout, stderr } = await runMain(args);
      expect(code).toBe(2);
      expect(stderr).toContain(
        `payload.source: ${join(dir, 'notes', 'b.txt')} is a symbolic link out of the source folder`,
      );
      expect(stdout + stderr).not.toContain('root:');
    }
    expect(existsSync(out)).toBe(false);
    expect(s.stats().requests.token.received + s.stats().requests.identification.received).toBe(0);
  });
});

describe('notice near the end of the calendar: never a draft the schema refuses', () => {
  const SANDBOX = readFileSync(new URL('../../scenarios/sandbox-burst.yaml', import.meta.url), 'utf8');
  const UNANNOUNCED = SANDBOX.replace(/^notice:\n(?: .*\n)+/m, '');

  it.each([
    ['9999-12-31T23:40:00Z'],
    ['9999-12-31T23:59:59Z'],
    ['9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:50:00-00:00'],
    ['9999-12-31T23:30:00-01:00'],
    ['10000-01-01T00:00:00+01:00'],
  ])('--at %s: refused with exit 2 and why, or drafted so that the run it announces is accepted', async (at) => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      at,
      '--announce-on',
      '9999-12-01',
      '--out',
      join(dir, 'n.md'),
    ]);
    expect(drafted.stderr).not.toContain('internal error');
    if (drafted.code === 2) {
      expect(drafted.stderr).toMatch(/--at( \S+)?: (no notice window can announce this run|expected an ISO date-time)/);
      expect(drafted.stdout).toBe('');
      return;
    }
    expect(drafted.code).toBe(0);
    const block = drafted.stdout
      .slice(drafted.stdout.indexOf('notice:\n'), drafted.stdout.indexOf('\n\nNothing was sent'))
      .replace('<the support case id>', 'SUP-9999-1');
    writeFileSync(file, `${UNANNOUNCED}${block}\n`);
    const planned = await runMain(['plan', file, '--at', at]);
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(0);
  });

  it('the last window that fits is drafted, and the guard accepts the run in it', async () => {
    const { file, dir } = scenarioWorkspace(UNANNOUNCED);
    const drafted = await runMain([
      'notice',
      file,
      '--at',
      '9999-12-31T23:00:00Z',
      '--announce-on',
      '9999-12-01',
      '--out',
      join(dir, 'n.md'),
    ]);
    expect(drafted.code).toBe(0);
    // A start window of 15 minutes (the run's 11m16s to the quarter hour), the run's length after it.
    expect(drafted.stdout).toContain("    end: '9999-12-31T23:26:16Z'");
  });

  it('a start whose window would pass 9999-12-31 is refused (exit 2), saying which field and why', async () => {
    const { file } = scenarioWorkspace(UNANNOUNCED);
    const { code, stdout, stderr } = await runMain([
      'notice',
      file,
      '--at',
      '9999-12-31T23:40:00Z',
      '--announce-on',
      '9999-12-01',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      '--at 9999-12-31T23:40:00Z: no notice window can announce this run: started as late as 9999-12-31T23:55:00Z (the start window), it would run to +010000-01-01T00:06:16Z',
    );
    expect(stderr).toContain(
      'notice.window.end would be refused: expected an ISO date-time with a zone, like 2026-11-20T09:00:00Z, in the years 1970 to 9999',
    );
  });
});

describe('a scenario file that is not UTF-8 is refused, never changed silently', () => {
  const TEXT =
    'name: w\ndescription: café\ntarget: { environment: mock, profile: zero }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n';
  const utf8 = Buffer.from(TEXT, 'utf8');

  it.each([
    [
      'Latin-1',
      Buffer.from(TEXT, 'latin1'),
      `the byte at byte offset ${Buffer.byteLength(TEXT.slice(0, TEXT.indexOf('é')))} (line 2, column 17) is not valid UTF-8`,
    ],
    [
      'a stray 0xFF at the end',
      Buffer.concat([utf8, Buffer.from([0xff])]),
      `the byte at byte offset ${utf8.length} (line 6, column 1) is not valid UTF-8`,
    ],
    [
      'a surrogate encoded in UTF-8 (CESU)',
      Buffer.concat([Buffer.from('name: w\n'), Buffer.from([0x23, 0x20, 0xed, 0xa0, 0x80, 0x0a]), utf8.subarray(8)]),
      'the byte at byte offset 10 (line 2, column 3) is not valid UTF-8',
    ],
    [
      'an overlong slash',
      Buffer.concat([Buffer.from('# '), Buffer.from([0xc0, 0xaf]), Buffer.from('\n'), utf8]),
      'the byte at byte offset 2 (line 1, column 3) is not valid UTF-8',
    ],
    [
      'a sequence cut at the end',
      Buffer.concat([utf8, Buffer.from('# '), Buffer.from([0xe4, 0xb8])]),
      `the byte at byte offset ${utf8.length + 2} (line 6, column 3) is not valid UTF-8`,
    ],
    [
      'UTF-16LE with its byte-order mark',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')]),
      'UTF-16LE text (its byte-order mark at byte offset 0), not UTF-8',
    ],
    [
      'UTF-16BE with its byte-order mark',
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()]),
      'UTF-16BE text (its byte-order mark at byte offset 0), not UTF-8',
    ],
    [
      'UTF-16LE without a byte-order mark',
      Buffer.from(TEXT, 'utf16le'),
      'a NUL byte at byte offset 1 (line 1, column 2): not text (UTF-16 without a byte-order mark?)',
    ],
  ])('%s: exit 2 with the byte offset, nothing made or sent', async (_what, bytes, mention) => {
    const { dir, out } = scenarioWorkspace('');
    for (const name of ['s.yaml', 's.json']) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      for (const args of [
        ['plan', file],
        ['run', file, '--out', out],
      ]) {
        const { code, stdout, stderr } = await runMain(args);
        expect(code).toBe(2);
        expect(stderr).toContain(`loadproof: SCENARIO_INVALID: ${file}: 1 problem\n  ✖ (file): `);
        expect(stderr).toContain(mention);
        expect(stderr).toContain('expected a UTF-8 text file (a UTF-8 byte-order mark is fine): save it as UTF-8');
        expect(stdout).toBe('');
      }
    }
    expect(existsSync(out)).toBe(false);
  });

  it('takes UTF-8, with or without a byte-order mark', async () => {
    const { dir } = scenarioWorkspace('');
    const file = join(dir, 's.yaml');
    for (const bytes of [utf8, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])]) {
      writeFileSync(file, bytes);
      const { code, stderr } = await runMain(['plan', file]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
    }
  });
});

describe('one grammar for numbers and durations, through plan and run', () => {
  it.each([
    [
      'thresholds: { all: ["count(504) < 0x10"] }\n',
      'thresholds.all[0]: count(…) compares with a whole number ≥ 0 in decimal digits, got "0x10"',
    ],
    [
      'thresholds: { all: ["p(95) < 1s1s"] }\n',
      'thresholds.all[0]: p(…) compares with a finite duration like 2500ms or 4s (decimal amounts, each unit (h, m, s, ms) at most once and largest first, a point only in the last), got "1s1s"',
    ],
    ['thresholds: { errors: "rate < 1e-2" }\n', 'got "1e-2"'],
    [
      'timeout: 1s1s\n',
      'timeout: expected timeout like "90s", "5m" or "1m30s" (units ms, s, m, h; each at most once, largest first), greater than zero, got "1s1s"',
    ],
    [
      'maxInFlight: 0x10\n',
      'maxInFlight: expected a decimal number, digits with at most one decimal point (no hex, octal, exponent, + sign or bare point), got 0x10',
    ],
  ])('%s: exit 2, nothing sent', async (extra, mention) => {
    const s = await mock({ profile: 'zero' });
    const { file, out } = scenarioWorkspace(
      `name: n\ndescription: d\ntarget: { environment: mock, baseUrl: "${s.url}" }\nphases:\n  - { name: a, duration: 10s, rpm: 60 }\n${extra}`,
    );
    for (const args of [
      ['plan', file],
      ['run', file, '--out', out],
    ]) {
      const { code, stderr } = await runMain(args);
      expect(code).toBe(2);
      expect(stderr).toContain(mention);
    }
    expect(s.stats().requests.token.received + s.stats().requests.identification.received).toBe(0);
  });
});

describe('loadproof mock --host: the same check as --metrics-host', () => {
  it.each([[''], [' '], ['0'], ['127.1'], ['0x7f000001'], ['[0.0.0.0]']])(
    'refuses %j with exit 2, listening nowhere',
    async (host) => {
      const { code, stdout, stderr } = await runMain(['mock', '--port', '0', '--host', host]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(`--host ${JSON.stringify(host)}: `);
    },
  );

  it('says on stderr that 0.0.0.0 is every interface', async () => {
    const cli = startCli(['mock', '--port', '0', '--host', '0.0.0.0']);
    expect(await cli.firstLine).toMatch(/^loadproof mock listening on http:\/\/0\.0\.0\.0:\d+$/);
    cli.child.kill('SIGINT');
    const { code, stderr } = await cli.exited;
    expect(code).toBe(0);
    expect(stderr).toContain('loadproof: WARNING: --host: the mock listens on http://0.0.0.0:');
    expect(stderr).toContain('on EVERY network interface of this host');
  });
});
