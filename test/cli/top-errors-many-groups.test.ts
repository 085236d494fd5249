/**
 * The "top errors" table when a server puts a fresh word in every error message: more groups than the run tells
 * apart. Requests beyond the groups it keeps are one row of the table; that row must not read as one error that
 * happened that many times (a support engineer would act on the "largest error" that never existed as such).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { type ErrorServer, startErrorServer } from '../helpers/error-server.js';
import { scenarioAt } from '../helpers/reconcile.js';

/** A word of letters only, different for every seq (numbers would be normalised away). */
const wordOf = (seq: number): string =>
  Array.from(seq.toString(26).padStart(4, '0'), (d) => String.fromCharCode(97 + parseInt(d, 26))).join('');

let server: ErrorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('top errors: more distinct messages than groups kept', () => {
  it('the requests beyond the groups kept are not shown as one error with a count', async () => {
    server = await startErrorServer((seq) => ({ status: 500, body: `backend failure ${wordOf(seq)}` }));
    // 1,500 requests planned, each message its own: more than the 1,000 groups a run tells apart.
    const ws = scenarioWorkspace(
      scenarioAt(server.url, '  - { name: errs, duration: 15s, rpm: 6000 }\n', 'timeout: 2s\n'),
    );
    const run = await runMain(['run', ws.file, '--out', ws.out, '--no-charts', '--quiet']);
    expect(run.code, run.stderr).toBe(1);
    const dir = join(ws.out, runFolders(ws.out)[0]!);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as {
      overall: { sent: number };
      topErrors: { count: number; sample: string | null }[];
      topErrorsNotGrouped: number;
    };
    // A busy machine may drop a few sends; each one sent is its own message, so the first 1,000 are the groups.
    const sent = summary.overall.sent;
    expect(sent).toBeGreaterThan(1000);
    const notGrouped = sent - 1000;
    // Every message was different: a row counting several requests is a group of different messages, and says so.
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const section = md.slice(md.indexOf('## Top errors'), md.indexOf('\n## ', md.indexOf('## Top errors') + 1));
    const rows = section.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    for (const row of rows) {
      const count = Number(row.split('|')[5]!.trim().replace(/,/g, ''));
      if (count > 1) expect(row, 'a row of many different messages').not.toMatch(/\(none kept\) \|$/);
    }
    for (const e of summary.topErrors) if (e.count > 1) expect(e.sample, 'a lump shown as one group').not.toBeNull();
    expect(run.stdout).not.toMatch(/^ {2}\d{3,} × 500 http_other \([\d.]+ % of sent\)$/m);
    // Those past the 1,000 groups: counted, labelled as not grouped, and the table still adds up to those sent.
    expect(summary.topErrorsNotGrouped).toBe(notGrouped);
    const p = notGrouped / sent;
    const share = `${(p * 100).toFixed(p < 0.1 ? 2 : 1)} %`;
    expect(section).toContain(`| — | — | — | — | ${notGrouped} | ${share} | other errors, not grouped`);
    const rest = sent - 10 - notGrouped;
    expect(section).toContain(
      `the 10 largest groups below, ${rest} more requests in smaller groups, and ${notGrouped} requests in no group`,
    );
    expect(run.stdout).toMatch(new RegExp(`^ {2}other errors, not grouped: ${notGrouped} `, 'm'));
  }, 90_000);
});
