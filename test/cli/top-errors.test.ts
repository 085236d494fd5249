/**
 * The "top errors" table: a run against a server that fails in seven ways (a 500 whose body echoes the access token
 * and the client secret, a reset, a timeout, a 502 with a hostile body, a 504, a 10 MB body, a 2xx cut short whose
 * body, quoting the text sent, is not kept) shows each group with its count and one masked, neutralised sample in
 * summary.json, report.md, report.html and the terminal; the same table comes back when the report is rebuilt from
 * the folder; events.ndjson keeps one sample a group, not a body a request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { type ErrorAnswer, type ErrorServer, startErrorServer } from '../helpers/error-server.js';
import { readRun, scenarioAt } from '../helpers/reconcile.js';

const CLIENT_ID = 'top-errors-client';
const SECRET = 'c4n4rySecret "q"/s%+p&a=e<l>';
const ENV = { LOADPROOF_CLIENT_ID: CLIENT_ID, LOADPROOF_CLIENT_SECRET: SECRET };
/** A bearer token the run never saw: masked for its look alone. */
const OTHER_TOKEN = 'Zm9yZWlnblRva2VuXzEyMzQ1Njc4OTA';
const HOSTILE = `\u0000\u0000<script>alert(1)</script> | a | b | \u202egnirts\u001b[31m ${'x'.repeat(200_000)}`;

/** Each request's fate by its seq, in a cycle of eight. */
function answer(seq: number, token: string): ErrorAnswer {
  switch (seq % 8) {
    case 0:
      return {
        status: 500,
        body: JSON.stringify({
          error: 'internal_error',
          message: `upstream failed for request ${seq}`,
          echo: {
            authorization: `Bearer ${token}`,
            client_secret: SECRET,
            basic: `Basic ${Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64')}`,
            other: `Bearer ${OTHER_TOKEN}`,
          },
        }),
      };
    case 1:
      return 'reset';
    case 2:
      return 'hang';
    case 3:
      return { status: 502, body: HOSTILE };
    case 4:
      return { status: 504, body: '{"error":"gateway_timeout","message":"no answer in 15 s"}' };
    case 5:
      return { status: 500, body: Buffer.alloc(10 * 1024 * 1024, 'y') };
    case 6:
      // A 2xx cut short: it quotes the text sent, which may be a patient's, so its body is not kept.
      return { status: 200, body: '{"entities":[{"type":"NAME","text":"Jane Roe","start":0' };
    default:
      return { status: 200, body: '{"entities":[]}' };
  }
}

let server: ErrorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Every form of a secret a leak could take here. */
const formsOf = (value: string): string[] => [
  value,
  JSON.stringify(value).slice(1, -1),
  encodeURIComponent(value),
  Buffer.from(`${CLIENT_ID}:${value}`).toString('base64'),
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
];

describe('top errors: what the service said, grouped, counted, masked', () => {
  it('seven kinds of failure: each its group and sample, in every report, and again from the folder', async () => {
    server = await startErrorServer(answer);
    // 16 requests, each of the eight fates twice; a 2 s timeout ends the hanging ones.
    const ws = scenarioWorkspace(
      scenarioAt(server.url, '  - { name: errs, duration: 8s, rpm: 120 }\n', 'timeout: 2s\n'),
    );
    const run = await runMain(['run', ws.file, '--out', ws.out, '--no-charts'], ENV);
    const dir = join(ws.out, runFolders(ws.out)[0]!);
    // readRun judges the folder again: the same summary, top errors included.
    const { summary, events } = await readRun(dir);
    const top = summary.topErrors as {
      status: number | null;
      outcome: string;
      code: string | null;
      count: number;
      share: number;
      sample: string | null;
    }[];
    const group = (outcome: string, status: number | null) =>
      top.find((e) => e.outcome === outcome && e.status === status);
    expect(top.map((e) => [e.status, e.outcome, e.code, e.count]).sort()).toEqual(
      [
        [500, 'http_other', 'internal_error', 2],
        [null, 'reset', 'ECONNRESET', 2],
        [null, 'timeout', 'LOADPROOF_DEADLINE', 2],
        [502, 'http_other', null, 2],
        [504, 'http_504', 'gateway_timeout', 2],
        [null, 'too_large', 'LOADPROOF_ANSWER_TOO_LARGE', 2],
        [200, 'malformed', null, 2],
      ].sort(),
    );
    for (const e of top) expect(e.share).toBe(Math.round((2 / summary.overall.sent) * 10_000) / 10_000);
    expect(summary.overall.sent).toBe(16);
    // The same requests as the phase table's 504s and errors.
    const o = summary.overall;
    const tableErrors = Object.values(o.errors as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(top.reduce((sum, e) => sum + e.count, 0)).toBe(o.outcomes.http_504 + o.outcomes.http_other + tableErrors);

    const echoed = group('http_other', 500)!.sample!;
    expect(echoed).toContain('upstream failed for request');
    expect(echoed).toContain('[redacted]');
    expect(echoed).not.toContain(OTHER_TOKEN);
    expect(echoed.length).toBeLessThanOrEqual(200);
    const hostile = group('http_other', 502)!.sample!;
    expect(Array.from(hostile).length).toBeLessThanOrEqual(200);
    expect(hostile).toMatch(/^<script>alert\(1\)<\/script> \| a \| b \| gnirts \[31m x+…$/);
    expect(group('http_504', 504)!.sample).toBe('{"error":"gateway_timeout","message":"no answer in 15 s"}');
    expect(group('too_large', null)!.sample).toContain('larger than');
    expect(group('timeout', null)!.sample).toMatch(/deadline|timeout/);
    expect(group('malformed', 200)!.sample).toMatch(/^a 200 answer not as expected \(\d+ bytes; not kept/);

    // One sample a group in events.ndjson, not a body a request.
    const failed = events.filter((e) => e.error !== undefined);
    expect(failed).toHaveLength(14);
    expect(failed.filter((e) => e.error.sample !== undefined)).toHaveLength(7);

    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const mdSection = md.slice(md.indexOf('## Top errors'), md.indexOf('\n## ', md.indexOf('## Top errors') + 1));
    expect(mdSection).toContain('| 500 | http_other | internal_error | 2 |');
    // The hostile body's pipes are escaped inside its code span; no tag reaches either page.
    expect(mdSection).toContain('`<script>alert(1)</script> \\| a \\| b \\|');
    expect(html).toContain('<h2>Top errors</h2>');
    expect(html).toContain('<code>&lt;script&gt;alert(1)&lt;/script&gt; | a | b |');
    expect(html).not.toContain('<script>alert');
    // The terminal: the three largest after the table.
    expect(run.stdout + run.stderr).toMatch(/top errors \(of the 504s and errors above[^\n]*\n {2}2 × /);

    // Rebuilt from the folder alone: the same section.
    const rebuilt = await runMain(['report', dir], ENV);
    expect(rebuilt.code, rebuilt.stderr).toBe(summary.exitCode);
    const md2 = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md2.slice(md2.indexOf('## Top errors'), md2.indexOf('\n## ', md2.indexOf('## Top errors') + 1))).toBe(
      mdSection,
    );

    // Neither the secret nor any token, in any form, anywhere.
    const texts = [run.stdout, run.stderr, md, html, readFileSync(join(dir, 'summary.json'), 'utf8')];
    texts.push(readFileSync(join(dir, 'events.ndjson'), 'utf8'));
    for (const text of texts) {
      for (const form of [...formsOf(SECRET), ...server.issued.flatMap(formsOf), 'c4n4rySecret', OTHER_TOKEN])
        expect(text.includes(form), `a secret as ${form}`).toBe(false);
      expect(text).not.toContain('\u0000');
      expect(text).not.toContain('\u202e');
      expect(text).not.toContain('Jane Roe');
    }
  }, 90_000);
});
