/**
 * The client once read at most 256 KiB of any answer while the mock's
 * obfuscation accepts 100,000 characters, whose answer is larger (a CJK text is 3 bytes a character,
 * a control character 6 as a JSON escape, plus the replacements). `deid` then blamed the service with
 * "obfuscation: no answer … (LOADPROOF_ANSWER_TOO_LARGE)" although it had answered. The obfuscation
 * answer's cap is sized from the largest answer the spec allows; an answer over a cap is named as such.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { MAX_ANSWER_BYTES } from '../../src/client/http1/index.js';
import { MAX_DEID_DOCUMENT_CHARS } from '../../src/deid/deid-once.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { scenarioAt } from '../helpers/reconcile.js';
import { startStub, type Stub } from '../helpers/stub.js';

let stub: Stub | undefined;
let server: MockServer | undefined;
afterEach(async () => {
  await stub?.close();
  await server?.close();
  stub = undefined;
  server = undefined;
});

/** `chars` characters of CJK text (3 UTF-8 bytes each) with a name and a date now and then. */
function cjkDocument(chars: number): string {
  const line =
    '患者は昨日から発熱と咳があり、本日外来を受診した。既往歴に特記事項なし。Patient John Smith seen on 03/14/2024.\n';
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

describe('the largest obfuscation answer is read, through the real mock over loopback', () => {
  it.each([
    ['a 96,000-character CJK document', cjkDocument(96_000)],
    // The worst JSON expansion: control characters are 6 bytes each as \u escapes, over the whole bound.
    [
      'the largest document, of characters JSON escapes to 6 bytes',
      ('\u0001\u001f' + cjkDocument(98)).repeat(MAX_DEID_DOCUMENT_CHARS / 100),
    ],
  ])(
    '%s: exit 0, the whole obfuscated text',
    async (_name, text) => {
      expect(text.length).toBeLessThanOrEqual(MAX_DEID_DOCUMENT_CHARS);
      const { dir } = scenarioWorkspace('unused: true\n');
      const file = join(dir, 'doc.txt');
      writeFileSync(file, text);
      // k = 5: a call's wall deadline is 3.2 s, room for a busy machine (see deid.test.ts).
      const { code, stdout, stderr } = await runMain(['deid', file, '--time-scale', '5', '--json', '--style', 'mask']);
      expect(code, stderr.slice(0, 2000)).toBe(0);
      expect(stderr).not.toContain('TOO_LARGE');
      const out = JSON.parse(stdout) as { text: string };
      // Masks keep the length: every character came back.
      expect(out.text.length).toBe(text.length);
      expect(out.text).not.toContain('John Smith');
    },
    120_000,
  );
});

describe('a deid-mode run: a large document is obfuscated, not counted as an error', () => {
  it('one 96,000-character CJK document: ok, no too_large', async () => {
    // The client's deadline is model time: 16 s at k = 60 is 0.27 s of wall time, which a busy machine's obfuscation of
    // 96,000 characters overran beside two CPU hogs (a timeout, not a too_large). At k = 10 it is 1.6 s of wall time.
    const K = 10;
    server = await startMockServer({ timeScale: K });
    const ws = scenarioWorkspace(
      `name: big\ndescription: one large document\nmode: deid\ntarget: { environment: mock, baseUrl: "${server.url}" }\npayload: { source: notes, seed: 1 }\nphases:\n  - { name: one, duration: 10s, rpm: 6 }\n`,
    );
    mkdirSync(join(ws.dir, 'notes'));
    writeFileSync(join(ws.dir, 'notes', 'big.txt'), cjkDocument(96_000));
    const { stderr } = await runMain([
      'run',
      '--no-charts',
      '--quiet',
      ws.file,
      '--time-scale',
      String(K),
      '--out',
      ws.out,
    ]);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    expect(summary.deid.overall.failed, stderr).toEqual({ identification: 0, obfuscation: 0 });
    expect(summary.deid.overall.ok).toBe(summary.deid.overall.documents);
    expect(summary.deid.overall.documents).toBeGreaterThan(0);
    expect(JSON.stringify(summary)).not.toContain('too_large":1');
  }, 120_000);
});

describe('an answer over the cap is named as such, never "no answer"', () => {
  it('deid: a token answer over MAX_ANSWER_BYTES is "an answer larger than N bytes", exit 4', async () => {
    stub = await startStub({
      token: () => ({ status: 200, body: { access_token: 'lpmock_at_x', padding: 'x'.repeat(MAX_ANSWER_BYTES) } }),
    });
    const { dir } = scenarioWorkspace('unused: true\n');
    const file = join(dir, 'scenario.yaml');
    writeFileSync(file, scenarioAt(stub.url, '  - { name: ten, duration: 10s, rpm: 60 }\n'));
    const { code, stderr } = await runMain(['deid', '-', '--scenario', file], {}, 'Patient John Smith.');
    expect(code, stderr).toBe(4);
    expect(stderr).toContain(`token: the answer from ${stub.url}`);
    expect(stderr).toContain(`is larger than ${MAX_ANSWER_BYTES} bytes`);
    expect(stderr).not.toContain('no answer');
  });
});
