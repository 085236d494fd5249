/**
 * `payload` through the CLI: the user's texts (a folder with an empty file and one over the limit) and
 * generated long documents reach a real mock split under the limit, the summary and the report tell
 * them by size only, and a bad source is refused before anything is sent.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const K = 60;
let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const scenario = (baseUrl: string, payload: string): string =>
  `name: payload-run\ndescription: texts\ntarget: { environment: mock, baseUrl: "${baseUrl}" }\nphases:\n  - { name: steady, duration: 30s, rpm: 60 }\npayload:\n${payload}`;

describe('run with payload', () => {
  it("sends the user's texts, split under the limit, and reports them by size only", async () => {
    server = await startMockServer({ timeScale: K });
    const { dir, file, out } = scenarioWorkspace(scenario(server.url, '  source: notes\n  seed: 3\n'));
    mkdirSync(join(dir, 'notes'));
    writeFileSync(join(dir, 'notes', 'a.txt'), 'Patient Mary Smith seen on 01/02/2024.');
    writeFileSync(join(dir, 'notes', 'b.txt'), 'Follow-up for John Brown, MRN 12345678, on March 3, 2024. '.repeat(40));
    writeFileSync(join(dir, 'notes', 'c.txt'), '\n\n');
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    expect(stderr).toContain('payload: 1 empty text not sent: c.txt');
    expect([0, 5]).toContain(code);
    const folder = join(out, runFolders(out)[0]!);
    const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
    // Every text reached the mock and none was over its limit (it answers 413 to those).
    expect(summary.counts.sent).toBe(30);
    expect(summary.overall.outcomes.ok + summary.overall.outcomes.http_429).toBe(30);
    expect(server.stats().requests.identification.received).toBe(30);
    expect(summary.payload).toMatchObject({
      source: 'files',
      texts: 30,
      empty: ['c.txt'],
      split: { maxTokens: 1024, margin: 0.1 },
    });
    expect(summary.payload.splitDocuments).toBeGreaterThan(0);
    expect(summary.payload.estimatedTokens.max).toBeLessThanOrEqual(921);
    const report = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(report).toMatch(
      /\| Texts sent \| 30 texts: \d+–\d+ characters \(mean \d+\), \d+–\d+ estimated tokens; from the user's texts in .*notes \(\d+ documents drawn; 1 empty, not sent\); \d+ documents? over 1024 tokens less 10 % split into pieces \|/,
    );
    for (const f of ['summary.json', 'report.md', 'run.json', 'events.ndjson'])
      expect(readFileSync(join(folder, f), 'utf8')).not.toContain('Mary Smith');
  });

  it('refuses a bad source before anything is sent, naming the field, the line and what was expected', async () => {
    server = await startMockServer({ timeScale: K });
    const { dir, file, out } = scenarioWorkspace(scenario(server.url, '  source: texts.ndjson\n'));
    writeFileSync(join(dir, 'texts.ndjson'), '{"text":"ok"}\n{"text":null}\n');
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'payload.source: texts.ndjson line 2: expected a JSON object with a string "text", got an object whose "text" is null',
    );
    expect(existsSync(out)).toBe(false);
    expect(server.stats().requests.identification.received + server.stats().requests.token.received).toBe(0);
  });

  it('refuses length classes for texts it does not generate', async () => {
    const { file, out } = scenarioWorkspace(
      scenario('http://127.0.0.1:9', '  source: notes\n  lengths: { long: 1 }\n'),
    );
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(2);
    expect(stderr).toContain('payload.lengths: expected lengths and kinds only with source "generated"');
  });
});
