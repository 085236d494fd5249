/** `loadproof deid`: one document through the chain, against the embedded mock or a scenario's target. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createRng } from '../../src/core/rng.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { generateDocument } from '../../src/texts/index.js';
import { runCli, runMain, scenarioWorkspace } from '../helpers/cli.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const doc = generateDocument(createRng(7), { kinds: { discharge: 1 }, lengths: { long: 1 } });

describe('loadproof deid', () => {
  it('prints the obfuscated document and a table of types and positions, never the values', async () => {
    const { dir } = scenarioWorkspace('unused: true\n');
    const file = join(dir, 'note.txt');
    writeFileSync(file, doc.text);
    // k = 5: a call's deadline is the 16 s timeout ÷ k of wall time, 3.2 s; at k = 100 (160 ms) a stall of a busy
    // machine was a timeout (exit 4). The same below for standard input.
    const { code, stdout, stderr } = await runCli(['deid', file, '--time-scale', '5']);
    expect(code, stderr).toBe(0);
    // The table never shows a value; what the mock's detector misses stays in the output (recall is measured apart).
    for (const value of doc.phi.map((p) => doc.text.slice(p.start, p.end))) expect(stderr).not.toContain(value);
    expect(stdout).toMatch(/^DISCHARGE SUMMARY\n\n/);
    expect(stdout).toMatch(/\[NAME\][^]*\[DATE\]|\[DATE\][^]*\[NAME\]/);
    expect(stderr).toMatch(
      /deid: \d+ characters in [2-9] pieces; [2-9] identification calls, 1 obfuscation call; \d+ entities replaced \((?=[^)]*NAME \d+)(?=[^)]*DATE \d+)/,
    );
    expect(stderr).toMatch(/type +start +end +replaced by\n[A-Z]+ +\d+ +\d+ +\[[A-Z]+\]/);
  });

  it('reads standard input, and with --json --show-values gives each entity its original text', async () => {
    const { code, stdout, stderr } = await runMain(
      ['deid', '-', '--time-scale', '5', '--json', '--show-values', '--style', 'mask', '--concurrency', '1'],
      {},
      'Patient John Smith, MRN 12345678, called (555) 123-4567.',
    );
    expect(code, stderr).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.text).toBe('Patient **********, MRN ********, called **************.');
    expect(out.entities.map((e: { type: string; value: string }) => [e.type, e.value])).toEqual([
      ['NAME', 'John Smith'],
      ['MRN', '12345678'],
      ['PHONE', '(555) 123-4567'],
    ]);
    expect(out.pieces).toEqual([{ offset: 0, length: 56 }]);
    expect(out.calls.map((c: { endpoint: string; status: number }) => `${c.endpoint} ${c.status}`)).toEqual([
      'token 200',
      'identification 200',
      'obfuscation 200',
    ]);
    // Every time names its clock: a call's round trip is wall time, whatever the time scale.
    expect(out.timeScale).toBe(5);
    for (const c of out.calls) {
      expect(c.latencyWallMs).toBeGreaterThan(0);
      expect(Object.keys(c).filter((k) => k.endsWith('Ms') && !/(Wall|Model)Ms$/.test(k))).toEqual([]);
    }
  });

  it('refuses an empty or missing document before sending anything (exit 2)', async () => {
    const empty = await runMain(['deid', '-'], {}, ' \n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('standard input: the document is empty; expected text to de-identify');
    const missing = await runMain(['deid', '/nonexistent/note.txt']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      '/nonexistent/note.txt does not exist; expected a text file, or - for standard input',
    );
    const device = await runMain(['deid', '/dev/zero']);
    expect(device.code).toBe(2);
    expect(device.stderr).toContain('/dev/zero is not a regular file');
    const huge = await runMain(['deid', '-', '--time-scale', '100'], {}, 'word '.repeat(20_001));
    expect(huge.code).toBe(2);
    expect(huge.stderr).toContain(
      'standard input: the document has 100005 characters; loadproof deid takes a document of at most 100000 characters',
    );
    const tiny = await runMain(['deid', '-', '--max-tokens', '64', '--margin', '0'], {}, 'text');
    expect(tiny.code).toBe(2);
    expect(tiny.stderr).toContain(
      '--max-tokens 64 --margin 0: pieces of 53 characters; expected at least 256, room for the seams',
    );
    const bad = await runMain(['deid', '-', '--concurrency', '0'], {}, 'text');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--concurrency: expected an integer from 1 to 64, got 0');
  });

  it("uses a scenario's target and credentials, and on refused credentials exits 4 without printing the secret", async () => {
    server = await startMockServer();
    const { file } = scenarioWorkspace(
      `name: t\ndescription: d\ntarget: { environment: mock, baseUrl: "${server.url}" }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n`,
    );
    const secret = 'not-the-right-secret-4711';
    const creds = join(file, '..', 'creds.json');
    writeFileSync(creds, JSON.stringify({ clientId: 'loadproof-mock-client', clientSecret: secret }), { mode: 0o600 });
    const { code, stdout, stderr } = await runMain(
      ['deid', '-', '--scenario', file, '--credentials', creds],
      {},
      'John Smith',
    );
    expect(code).toBe(4);
    expect(stderr).toMatch(/AUTH_FAILED: token: .* answered 401/);
    expect(stdout + stderr).not.toContain(secret);
    expect(server.stats().requests.identification.received).toBe(0);
  });
});
