/**
 * report.html in a real browser — headless Chromium from Debian's packages, driven by
 * playwright-core. The page opens from the file alone: no console error, no request but the file
 * itself, every chart's canvas drawn, the charts interactive (a hover shows a tooltip, a click on a
 * legend entry hides its series), and the same tables as report.md. Where Chromium is absent the test
 * is skipped, and its name says so: never passed without a browser.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

// What the callbacks of page.evaluate() see: the page's globals (the project is typed for Node, not the DOM).
declare const document: any;
declare const window: any;

const CHROMIUM = process.env.LOADPROOF_CHROMIUM ?? '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
if (!present)
  console.warn(
    `report.html browser test SKIPPED: no Chromium at ${CHROMIUM} (install Debian's chromium, as .ci/run does, or set LOADPROOF_CHROMIUM)`,
  );
const title = present
  ? 'report.html in headless Chromium'
  : `report.html in headless Chromium — SKIPPED: no Chromium at ${CHROMIUM}`;

/** The cells of a Markdown table's body rows, after its line starting with `| <first> |`. */
function markdownRows(md: string, head: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${head} |`));
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push(
      lines[i]!.slice(2, -2)
        .split(/ (?<!\\)\| /)
        .map((c) => c.replace(/\\(.)/g, '$1')),
    );
  }
  return rows;
}

describe.skipIf(!present)(title, () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    // A ramp (band rows) against the tight mock (429s), at k = 60: about 2 s of wall time.
    const ws = scenarioWorkspace(
      'name: html\ndescription: a report to open in a browser\nphases:\n  - { name: ramp, duration: 1m, fromRpm: 60, toRpm: 240 }\n  - { name: over, duration: 1m, rpm: 120 }\n',
    );
    // k = 20, not 60: at 60 the wall deadline (16 s ÷ 60 + 1 s) timed answers out on a busy machine.
    const run = await runMain(['run', ws.file, '--time-scale', '20', '--mock-profile', 'tight', '--out', ws.out]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    dir = join(ws.out, runFolders(ws.out)[0]!);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('opens from the file alone: no console error, no other request, every chart drawn', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    const url = pathToFileURL(join(dir, 'report.html')).href;
    await page.goto(url);
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll('canvas')].map((canvas: any) => {
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return { id: canvas.id, painted };
      }),
    );
    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    expect(drawn.map((d) => d.id).sort()).toEqual([
      'chart-in-flight',
      'chart-latency-distribution',
      'chart-latency-over-time',
      'chart-rate-and-refusals',
      'chart-send-lag',
    ]);
    for (const d of drawn) expect(d.painted, d.id).toBeGreaterThan(5000);
    await page.close();
  });

  it('has interactive charts: a hover shows the values, a click on a legend entry hides its series', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(join(dir, 'report.html')).href);
    const canvas = page.locator('#chart-rate-and-refusals');
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    // Where, on the page, is a point of the first series and the first legend entry (chart.js's own coordinates, scaled
    // to the CSS box).
    const at = await page.evaluate(() => {
      const c = document.getElementById('chart-rate-and-refusals');
      const chart = window.Chart.getChart(c);
      const point = chart.getDatasetMeta(0).data[Math.floor(chart.getDatasetMeta(0).data.length / 2)];
      const legend = chart.legend.legendHitBoxes[0];
      const scale = c.getBoundingClientRect().width / chart.width;
      return {
        point: { x: point.x * scale, y: point.y * scale },
        legend: { x: (legend.left + legend.width / 2) * scale, y: (legend.top + legend.height / 2) * scale },
      };
    });
    // chart.js handles pointer events on the next animation frame: wait for the effect, not a fixed time.
    await page.mouse.move(box.x + 5, box.y + 5);
    await page.mouse.move(box.x + at.point.x, box.y + at.point.y, { steps: 3 });
    await page.waitForFunction(
      () =>
        window.Chart.getChart(document.getElementById('chart-rate-and-refusals')).tooltip.getActiveElements().length >
        0,
      undefined,
      { timeout: 10_000 },
    );
    await page.mouse.click(box.x + at.legend.x, box.y + at.legend.y);
    await page.waitForFunction(
      () => !window.Chart.getChart(document.getElementById('chart-rate-and-refusals')).isDatasetVisible(0),
      undefined,
      { timeout: 10_000 },
    );
    await page.close();
  });

  it('carries the same content as report.md: the phase table cell for cell, the evidence, the 429s', async () => {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(join(dir, 'report.html')).href);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const htmlRows = await page.evaluate(() =>
      [...document.querySelectorAll('table.phases tbody tr')].map((tr: any) =>
        [...tr.querySelectorAll('td')].map((td: any) => String(td.textContent ?? '')),
      ),
    );
    expect(htmlRows).toEqual(markdownRows(md, 'Phase'));
    expect(htmlRows.some((r) => r[0]!.startsWith('↳ '))).toBe(true); // the ramp's band slices
    const text: string = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('The first 429 came');
    // Every line of the evidence, its short reasons and folded detail included (a folded line is in the page,
    // closed), up to the next section (Top errors, when a request failed, is a table).
    const all: string = await page.evaluate(() => document.body.textContent);
    for (const line of md
      .slice(md.indexOf('## Evidence'), md.indexOf('\n## ', md.indexOf('## Evidence')))
      .split('\n')
      .slice(1)) {
      if (line.trim() === '' || line.startsWith('**') || line.startsWith('## ')) continue;
      expect(all).toContain(line.replace(/^- /, '').trim());
    }
    await page.close();
  });

  it('opens with the verdict in one sentence and the key figures in the first screen, and carries the brief', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(join(dir, 'report.html')).href);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const order = await page.evaluate(() =>
      ['h1', 'p.headline', 'table.kpis', 'table.phases', 'section.brief', 'table.identity'].map((selector) => {
        const box = document.querySelector(selector)?.getBoundingClientRect();
        return { selector, top: box?.top ?? null, bottom: box?.bottom ?? null };
      }),
    );
    // In this order down the page, the verdict and the key figures within the first screen.
    for (let i = 1; i < order.length; i++)
      expect(order[i]!.top, order[i]!.selector).toBeGreaterThan(order[i - 1]!.top!);
    expect(order.find((o) => o.selector === 'table.kpis')!.bottom).toBeLessThan(900);
    const headline: string = await page.evaluate(() => document.querySelector('p.headline').textContent);
    expect(headline).toBe(md.split('\n')[2]!.replace(/^\*\*|\*\*$/g, ''));
    expect(headline).toMatch(/^(PASS|FAIL|INCONCLUSIVE): /);
    const kpis = await page.evaluate(() => ({
      head: [...document.querySelectorAll('table.kpis th')].map((th: any) => String(th.textContent)),
      cells: [...document.querySelectorAll('table.kpis td')].map((td: any) => String(td.textContent)),
    }));
    expect(kpis.head.slice(0, 2)).toEqual(['Requests sent', 'Goodput']);
    expect([kpis.cells]).toEqual(markdownRows(md, 'Requests sent'));
    // The brief: brief.md's sections and its phase table, cell for cell; the manifest's hash only in brief.md.
    const briefMd = readFileSync(join(dir, 'brief.md'), 'utf8');
    const brief = await page.evaluate(() => ({
      title: String(document.querySelector('section.brief h2').textContent),
      headings: [...document.querySelectorAll('section.brief h3')].map((h: any) => String(h.textContent)),
      rows: [...document.querySelectorAll('table.brief-phases tbody tr')].map((tr: any) =>
        [...tr.querySelectorAll('td')].map((td: any) => String(td.textContent)),
      ),
      text: String(document.querySelector('section.brief').innerText),
    }));
    expect(`# ${brief.title}`).toBe(briefMd.split('\n')[0]);
    expect(brief.headings).toEqual([...briefMd.matchAll(/^## (.+)$/gm)].map((m) => m[1]));
    expect(brief.rows).toEqual(markdownRows(briefMd, 'Phase'));
    expect(brief.text).toContain('this brief shows the form only, and is no evidence about the service');
    expect(brief.text).toContain('x-loadproof-seq: <n>');
    expect(brief.text).toContain('in brief.md beside this report');
    await page.close();
  });
  it('a stepping run: the capacity table cell for cell as report.md, its sentences, both rate charts drawn', async () => {
    const ws = scenarioWorkspace(
      'name: steps\ndescription: three steps up\nphases:\n  - { name: step-30, duration: 1m, rpm: 30 }\n  - { name: step-60, duration: 1m, rpm: 60 }\n  - { name: step-120, duration: 1m, rpm: 120 }\n',
    );
    // k = 20, not 60: at 60 the wall deadline (16 s ÷ 60 + 1 s) timed answers out on a busy machine.
    const run = await runMain(['run', ws.file, '--time-scale', '20', '--mock-profile', 'tight', '--out', ws.out]);
    expect([0, 1, 5], run.stderr).toContain(run.code);
    const folder = join(ws.out, runFolders(ws.out)[0]!);
    const md = readFileSync(join(folder, 'report.md'), 'utf8');
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(pathToFileURL(join(folder, 'report.html')).href);
    const rows = await page.evaluate(() =>
      [...document.querySelectorAll('table.capacity tbody tr')].map((tr: any) =>
        [...tr.querySelectorAll('td')].map((td: any) => String(td.textContent ?? '')),
      ),
    );
    expect(rows).toEqual(markdownRows(md, 'Step'));
    const text: string = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('Goodput (2xx/min)');
    expect(text).toMatch(/The highest rate served within its target|No step was served within its target/);
    expect(text).toContain('The first 429 came at ');
    const painted = await page.evaluate(() =>
      ['chart-latency-vs-rate', 'chart-goodput-vs-offered'].map((id) => {
        const canvas = document.getElementById(id);
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
      }),
    );
    for (const n of painted) expect(n).toBeGreaterThan(5000);
    await page.close();
  });
});
