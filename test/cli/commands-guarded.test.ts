/**
 * No command sends without the guard's decision. The commands are
 * enumerated from the CLI's own table (COMMANDS in src/cli/main.ts), so a new command fails here until
 * it is given an invocation below: every command that sends, against a scenario the guard refuses, exits
 * 3 with zero requests at a counting loopback server (token calls included); every other command sends
 * nothing at all. Structurally, what sends needs a SendPermit only the guard issues (architecture test).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { COMMANDS } from '../../src/cli/main.js';
import { runMain, scenarioWorkspace } from '../helpers/cli.js';
import { startStub, type Stub } from '../helpers/stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const CREDENTIALS = { LOADPROOF_CLIENT_ID: 'guarded-client', LOADPROOF_CLIENT_SECRET: 'guarded-secret-0123456789' };

/** A scenario whose target is the stub, declared as `environment`, with `extra` fields. */
const scenarioAt = (url: string, environment: string, extra = ''): string =>
  `name: guarded\ndescription: refused by the guard\ntarget: { environment: ${environment}, baseUrl: "${url}" }\nphases: [{ name: one, duration: 30s, rpm: 60 }]\n${extra}`;

const sent = (s: Stub): number => s.counts.token + s.counts.identification + s.counts.other + s.counts.connections;

/** How each command is invoked against a refused scenario (`file`) whose target is the stub. */
type Invocation = (w: { file: string; dir: string; doc: string }) => string[];
const SENDING: Record<string, Invocation> = {
  run: ({ file, dir }) => ['run', file, '--out', join(dir, 'reports'), '--no-charts', '--quiet'],
  check: ({ file }) => ['check', file],
  probe: ({ file, dir }) => [
    'probe',
    file,
    '--out',
    join(dir, 'reports'),
    '--connections',
    '1',
    '--step',
    '2s',
    '--max-rpm',
    '60',
  ],
  deid: ({ file, doc }) => ['deid', doc, '--scenario', file],
};
/**
 * The offline commands, each on real input that names the stub as its target: `dir/run` is a finished run
 * folder of a mock-environment scenario whose baseUrl is the stub (made first; see below), so reading,
 * judging and hashing it has a target it could send to, and must not. merge needs shards (test/cli/shards.test.ts
 * merges real ones); here it is refused on folders that are not shards, before anything else.
 */
const OFFLINE: Record<string, Invocation> = {
  plan: ({ file }) => ['plan', file],
  notice: ({ file, dir }) => ['notice', file, '--at', '2027-03-01T09:00:00Z', '--out', join(dir, 'notice.md')],
  report: ({ dir }) => ['report', join(dir, 'run'), '--no-charts'],
  verify: ({ dir }) => ['verify', join(dir, 'run')],
  compare: ({ dir }) => ['compare', join(dir, 'run'), join(dir, 'run')],
  trend: ({ dir }) => ['trend', join(dir, 'run'), '--out', join(dir, 'trend')],
  merge: ({ dir }) => ['merge', join(dir, 'run'), join(dir, 'run'), '--out', join(dir, 'merged')],
  schema: () => ['schema'],
  // The mock serves; it sends nothing (stopped at once: see runMock below).
  mock: () => ['mock', '--port', '0'],
};
/** What each offline command's exit must be, on that input: it did its work (or refused it as named). */
const OFFLINE_EXIT: Record<string, readonly number[]> = {
  plan: [3],
  notice: [0, 3],
  report: [0, 5],
  verify: [0],
  compare: [0],
  trend: [0],
  merge: [2],
  schema: [0],
  mock: [0],
};

/** main() in-process, with a signal that arrives at once (so that `mock` stops after it listened). */
async function runWithSignal(args: string[]): Promise<{ code: number; stderr: string }> {
  const { main } = (await import(
    new URL('../../dist/cli/main.js', import.meta.url).href
  )) as typeof import('../../src/cli/main.js');
  const { SecretMask } = (await import(
    new URL('../../dist/core/redact.js', import.meta.url).href
  )) as typeof import('../../src/core/redact.js');
  let stderr = '';
  let signalled = false;
  const code = await main(args, {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    stdoutData: () => {},
    secrets: new SecretMask(),
    env: { ...process.env },
    argv: args,
    cwd: process.cwd(),
    stderrIsTTY: false,
    stderrColumns: () => undefined,
    readStdin: async () => '',
    // One signal, at once; no second one (report and merge wait for another, to swallow it while they finish).
    waitForSignal: () => (signalled ? new Promise<never>(() => {}) : ((signalled = true), Promise.resolve('SIGTERM'))),
  });
  return { code, stderr };
}

describe('every command of the CLI is classified: sending ones are guarded, the others send nothing', () => {
  it('classifies each command of the CLI, and has an invocation for it', () => {
    for (const c of COMMANDS) {
      const table = c.sends ? SENDING : OFFLINE;
      expect(
        Object.keys(table),
        `${c.name} (${c.sends ? 'sends' : 'offline'}): add it to the table of this test`,
      ).toContain(c.name);
    }
    expect(
      COMMANDS.filter((c) => c.sends)
        .map((c) => c.name)
        .sort(),
    ).toEqual(Object.keys(SENDING).sort());
  });

  // The target rule (a real environment is not on loopback), for sandbox without notice and production alike.
  describe.each(['sandbox', 'production'])('a %s scenario at a loopback URL', (environment) => {
    it.each(COMMANDS.filter((c) => c.sends).map((c) => c.name))(
      '%s: exit 3, zero requests (not even a token call)',
      async (name) => {
        stub = await startStub();
        const w = scenarioWorkspace(scenarioAt(stub.url, environment));
        const doc = join(w.dir, 'note.txt');
        writeFileSync(doc, 'Patient John Smith, MRN 12345678, seen on 2026-01-02.\n'.repeat(800));
        const { code, stderr } = await runMain(SENDING[name]!({ ...w, doc }), CREDENTIALS);
        expect(code, stderr).toBe(3);
        expect(stderr).toContain('GUARD_REFUSED');
        expect(stderr).toMatch(
          /target: target\.baseUrl http:\/\/127\.0\.0\.1:\d+ is loopback, but target\.environment is/,
        );
        expect(sent(stub)).toBe(0);
      },
    );
  });

  it.each(['0/2', '1/3'])('run --shard %s: the whole plan is judged, exit 3, zero requests', async (shard) => {
    stub = await startStub();
    const w = scenarioWorkspace(scenarioAt(stub.url, 'production'));
    const { code, stderr } = await runMain([...SENDING.run!({ ...w, doc: '' }), '--shard', shard], CREDENTIALS);
    expect(code, stderr).toBe(3);
    expect(stderr).toContain('GUARD_REFUSED');
    expect(sent(stub)).toBe(0);
  });

  it.each(COMMANDS.filter((c) => !c.sends).map((c) => c.name))('%s sends nothing', async (name) => {
    stub = await startStub();
    const w = scenarioWorkspace(scenarioAt(stub.url, 'sandbox'));
    // A finished run folder whose target is the stub (a loopback mock-environment run: 4 requests).
    const mockRun = join(w.dir, 'mock-run.yaml');
    writeFileSync(
      mockRun,
      `name: guarded\ndescription: a finished run\ntarget: { environment: mock, baseUrl: "${stub.url}" }\nphases: [{ name: one, duration: 2s, rpm: 120 }]\n`,
    );
    const made = await runMain(
      ['run', mockRun, '--run-dir', join(w.dir, 'run'), '--no-charts', '--quiet'],
      CREDENTIALS,
    );
    expect([0, 5], made.stderr).toContain(made.code);
    const before = sent(stub);
    expect(before).toBeGreaterThan(0);
    // Only the mock waits for a signal (it stops at once); the others run to their end.
    const args = OFFLINE[name]!({ ...w, doc: '' });
    const { code, stderr } = name === 'mock' ? await runWithSignal(args) : await runMain(args, CREDENTIALS);
    expect(OFFLINE_EXIT[name], stderr).toContain(code);
    expect(sent(stub) - before).toBe(0);
  });
});

describe('loadproof deid is judged on the traffic it sends', () => {
  const real = ['--allow-loopback-as-real'];

  it('refuses a sandbox scenario without a notice (exit 3, nothing sent)', async () => {
    stub = await startStub();
    const { file } = scenarioWorkspace(scenarioAt(stub.url, 'sandbox'));
    const { code, stderr } = await runMain(
      ['deid', '-', '--scenario', file, ...real],
      CREDENTIALS,
      'Patient John Smith.',
    );
    expect(code).toBe(3);
    expect(stderr).toMatch(/✖ notice: a sandbox run needs an advance notice/);
    expect(sent(stub)).toBe(0);
  });

  it('refuses a document whose pieces and seams, re-asks and retries pass the envelope in a minute; allows a short one', async () => {
    stub = await startStub();
    const { file } = scenarioWorkspace(scenarioAt(stub.url, 'production'));
    // 40 KB: about 53 pieces, budget 106 identification requests + 1 obfuscation, each up to 3 attempts in one minute.
    const long = 'Patient John Smith, MRN 12345678, seen on 2026-01-02.\n'.repeat(760);
    const refused = await runMain(['deid', '-', '--scenario', file, '--concurrency', '64', ...real], CREDENTIALS, long);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/✖ envelope: the plan is outside the documented envelope .*it peaks at \d+ rpm/);
    expect(sent(stub)).toBe(0);
    // A short document is inside it: sent (the stub has no obfuscation endpoint: exit 4 after identification).
    const short = await runMain(
      ['deid', '-', '--scenario', file, ...real],
      CREDENTIALS,
      'Patient John Smith, MRN 12345678.',
    );
    expect(short.stderr).toContain('Guard: ALLOWED');
    expect(stub.counts.token).toBe(1);
    expect(stub.counts.identification).toBe(1);
  });

  it('never sends a real environment more identification requests than the guard judged, however often answers are cut', async () => {
    // Every answer says its entity list was cut: the chain would re-ask in halves, three levels deep.
    stub = await startStub({ identify: () => ({ status: 200, body: { entities: [], truncated: true } }) });
    const { file } = scenarioWorkspace(scenarioAt(stub.url, 'production'));
    const text = 'The patient was seen today and is doing well, with no complaint at all. '.repeat(40);
    const { stderr } = await runMain(
      ['deid', '-', '--scenario', file, '--json', '--concurrency', '8', ...real],
      CREDENTIALS,
      text,
    );
    const { documentPieces, identifyBudget } = await import('../../src/deid/index.js');
    const pieces = documentPieces(text, { maxTokens: 1024, margin: 0.1 }).pieces.length;
    expect(pieces, stderr).toBeGreaterThan(1);
    expect(stub.counts.identification).toBeGreaterThan(pieces);
    expect(stub.counts.identification).toBeLessThanOrEqual(identifyBudget(pieces));
  });
});
