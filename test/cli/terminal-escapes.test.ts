/**
 * No raw terminal control reaches the terminal (a scenario file must not be able to drive the user's terminal): every
 * text field of a scenario (description, notice.reference, coordination.reference, limits.reference, $schema) and its
 * file name carry ESC colour codes, an OSC 52 clipboard write, CSI 2J (clear screen), C1 controls, bidi overrides
 * and isolates, other format characters and line separators, through plan, run (allowed, refused, the
 * embedded mock), notice and check. Every line printed holds none of them raw — they are shown escaped
 * (\u001b…) — while loadproof's own newlines and tabs stay. One mechanism at the Io boundary
 * (src/cli/io.ts `printable`), used by the process and by runMain alike.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MOCK_DEFAULTS } from '../../src/mock/defaults.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runMain } from '../helpers/cli.js';

/**
 * ESC colours, OSC 52 (clipboard), CSI 2J + cursor home, C1 CSI and NEL, bidi override/isolate/mark, BS, DEL, a lone
 * CR, U+2028, an astral format character.
 */
const HOSTILE =
  'X\x1b[31mRED\x1b[0m \x1b]52;c;aGk=\x07 \x1b[2J\x1b[H \u009b1m \u0085 \u202eRTL\u202c \u2066x\u2069 \u200f \r\x08\x7f \u2028 \u{E0001}Z';
const SHOWN = '\\u001b[31mRED';
const DAYS = (n: number): string => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const CREDS = { LOADPROOF_CLIENT_ID: MOCK_DEFAULTS.clientId, LOADPROOF_CLIENT_SECRET: MOCK_DEFAULTS.clientSecret };

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A scenario (JSON, so every character can be written) whose every free-text field is hostile. */
function scenarioFile(
  target: { environment: string; baseUrl?: string },
  announcedDaysAgo: number,
  name = 'scenario.json',
  phases: unknown[] = [{ name: 'p', duration: '1m', rpm: 60 }],
): { file: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-escapes-'));
  const scenario = {
    $schema: `schema ${HOSTILE}`,
    name: 'escapes',
    description: `d ${HOSTILE}`,
    target,
    ...(target.environment === 'mock'
      ? {}
      : { notice: { announcedOn: DAYS(-announcedDaysAgo), reference: `N-${HOSTILE}` } }),
    coordination: { reference: `C-${HOSTILE}` },
    limits: { sustainedRpm: 120, reference: `L-${HOSTILE}` },
    phases,
  };
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(scenario));
  return { file, out: join(dir, 'reports') };
}

/** Asserts that `text` holds no control, format or line-separator character but newline and tab. */
function expectNoRawControls(text: string): void {
  const raw = [...text].filter((c) => /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(c) && c !== '\n' && c !== '\t');
  expect(raw.map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)).toEqual([]);
}

describe('no raw terminal control in any line printed', () => {
  it('plan: the description and the notice, coordination and limits references (guard lines, predicted 429s)', async () => {
    const { file } = scenarioFile({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:9' }, 20);
    const { code, stdout, stderr } = await runMain(['plan', file, '--allow-loopback-as-real']);
    expect(code, stderr).toBe(0);
    for (const field of [`d X${SHOWN}`, `N-X${SHOWN}`, `L-X${SHOWN}`]) expect(stdout).toContain(field);
    // The table keeps its own layout.
    expect(stdout).toMatch(/\n {2}1 {2}p /);
    expectNoRawControls(stdout + stderr);
  });

  it('notice: the draft for support (above 200 rpm for more than 5 minutes: it quotes the coordination reference)', async () => {
    const { file } = scenarioFile(
      { environment: 'sandbox', baseUrl: 'https://sandbox.example.invalid' },
      20,
      'scenario.json',
      [{ name: 'p', duration: '6m', rpm: 250 }],
    );
    const notice = join(dirname(file), 'notice.md');
    const { code, stdout, stderr } = await runMain(['notice', file, '--at', `${DAYS(20)}T09:00:00Z`, '--out', notice]);
    expect(code, stderr).toBe(0);
    // notice.md, the text sent to support, holds the scenario's text escaped as well.
    const md = readFileSync(notice, 'utf8');
    expect(md).toContain(`C-X${SHOWN}`);
    expectNoRawControls(stdout + stderr + md);
  });

  it('run refused by the guard (a notice too recent): its guard lines, in a real process', async () => {
    const { file, out } = scenarioFile({ environment: 'sandbox', baseUrl: 'http://127.0.0.1:9' }, 2);
    const { code, stdout, stderr } = await runCli(
      ['run', '--no-charts', file, '--out', out, '--allow-loopback-as-real'],
      CREDS,
    );
    expect(code).toBe(3);
    expect(stdout + stderr).toContain(`N-X${SHOWN}`);
    expectNoRawControls(stdout + stderr);
  });

  it('run allowed against a real environment (loopback as real): guard lines, table, verdict', async () => {
    const s = (server = await startMockServer({ timeScale: 1 }));
    const { file, out } = scenarioFile({ environment: 'sandbox', baseUrl: s.url }, 20);
    // 3 requests: a short run at k = 1.
    writeFileSync(
      file,
      JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), phases: [{ name: 'p', duration: '3s', rpm: 60 }] }),
    );
    const { code, stdout, stderr } = await runMain(
      ['run', '--no-charts', file, '--out', out, '--allow-loopback-as-real', '--verbose'],
      CREDS,
    );
    expect([0, 5], stderr).toContain(code);
    expect(stdout + stderr).toContain(`N-X${SHOWN}`);
    expectNoRawControls(stdout + stderr);
  });

  it('run on the embedded mock: the description and references', async () => {
    const { file, out } = scenarioFile({ environment: 'mock' }, 0);
    const { code, stdout, stderr } = await runMain(['run', '--no-charts', file, '--out', out, '--time-scale', '20']);
    expect([0, 1, 5], stderr).toContain(code);
    expectNoRawControls(stdout + stderr);
  });

  it('check: the preflight and the guard decision, as text and as JSON (which stays valid JSON)', async () => {
    const s = (server = await startMockServer({ timeScale: 1 }));
    const { file } = scenarioFile({ environment: 'sandbox', baseUrl: s.url }, 20);
    const text = await runMain(['check', file, '--allow-loopback-as-real'], CREDS);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`N-X${SHOWN}`);
    expectNoRawControls(text.stdout + text.stderr);
    const json = await runMain(['check', file, '--allow-loopback-as-real', '--json'], CREDS);
    expectNoRawControls(json.stdout + json.stderr);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(`N-${HOSTILE}`).slice(1, -1));
  });

  it('a scenario file whose name holds the controls: the error that names it (exit 2)', async () => {
    const { file } = scenarioFile({ environment: 'mock' }, 0, `bad${HOSTILE.replace(/[/\0]/g, '')}.json`);
    writeFileSync(
      file,
      '{"name": "escapes", "description": "d", "phases": [{"name": "p", "duration": "1m", "rpm": -1}]}',
    );
    const { code, stdout, stderr } = await runMain(['plan', file]);
    expect(code).toBe(2);
    expect(stderr).toContain(SHOWN);
    expectNoRawControls(stdout + stderr);
  });
});
