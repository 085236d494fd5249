/**
 * report.html's Top errors in a real browser (headless Chromium, as report-html.test.ts): a server's hostile body
 * (markup, an event handler, a script) shows as text and runs nothing, and the table is report.md's cell for cell.
 * Skipped, and named so, where Chromium is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { type ErrorAnswer, type ErrorServer, startErrorServer } from '../helpers/error-server.js';
import { scenarioAt } from '../helpers/reconcile.js';

// What the callbacks of page.evaluate() see: the page's globals (the project is typed for Node, not the DOM).
declare const document: any;
declare const window: any;

const CHROMIUM = process.env.LOADPROOF_CHROMIUM ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const title = present
  ? 'Top errors in headless Chromium'
  : `Top errors in headless Chromium — SKIPPED: no Chromium at ${CHROMIUM}`;

const HOSTILE =
  '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`code` **bold** [link](http://x) | pipe |';

function answer(seq: number): ErrorAnswer {
  if (seq % 3 === 0) return { status: 502, body: HOSTILE };
  if (seq % 3 === 1) return { status: 504, body: '{"error":"gateway_timeout"}' };
  return { status: 200, body: '{"entities":[]}' };
}

/** The cells of a Markdown table's body rows, after its line starting with `| <first> |`; code spans as text. */
function markdownRows(md: string, head: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${head} |`));
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++)
    rows.push(
      lines[i]!.slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((c) => c.replace(/\\(.)/g, '$1').replace(/^`(.*)`$/, '$1')),
    );
  return rows;
}

let server: ErrorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!present)(title, () => {
  it('a hostile body shows as text, runs nothing, and the table is report.md cell for cell', async () => {
    server = await startErrorServer(answer);
    const ws = scenarioWorkspace(scenarioAt(server.url, '  - { name: errs, duration: 3s, rpm: 120 }\n'));
    const run = await runMain(['run', ws.file, '--out', ws.out, '--no-charts', '--quiet']);
    expect([0, 1], run.stderr).toContain(run.code);
    const dir = join(ws.out, runFolders(ws.out)[0]!);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const url = pathToFileURL(join(dir, 'report.html')).href;
      await page.goto(url);
      const rows: string[][] = await page.evaluate(() =>
        [...document.querySelectorAll('table.errors tbody tr')].map((tr: any) =>
          [...tr.querySelectorAll('td')].map((td: any) => String(td.textContent ?? '')),
        ),
      );
      expect(rows).toEqual(markdownRows(readFileSync(join(dir, 'report.md'), 'utf8'), '#'));
      expect(rows.map((r) => r.slice(1, 5))).toEqual([
        ['502', 'http_other', '—', '2'],
        ['504', 'http_504', 'gateway_timeout', '2'],
      ]);
      // The backquotes of the body became quotes: its code span is the sample's own, whole.
      expect(rows[0]![6]).toBe(HOSTILE.replaceAll('`', "'"));
      expect(await page.evaluate(() => window.pwned)).toBeUndefined();
      expect(await page.evaluate(() => document.querySelectorAll('table.errors img, table.errors a').length)).toBe(0);
      expect(requests).toEqual([url]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
