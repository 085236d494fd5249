/**
 * The files a judged run gets beside summary.json, all built from the summary (and run.json), so that
 * `loadproof report` rebuilds them from the run folder (a crashed run's included, marked partial).
 * Each is written whole or not at all; a failure is returned with its reason, never thrown, so that
 * one report that cannot be written costs none of the others. The manifest comes last: it hashes
 * every other file, summary.json included.
 */
import { lstat, mkdir, readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

import { type FileResult, removeRegular, writeAtomically } from '../core/index.js';
import { briefContent } from './brief-content.js';
import { BRIEF_FILE } from './brief-file.js';
import { briefMarkdown } from './brief-markdown.js';
import { runCharts } from './charts.js';
import { reportContent } from './content.js';
import type { ReportContent, ReportInput } from './content-types.js';
import { reportHtml } from './html.js';
import { junitXml } from './junit.js';
import { reportMarkdown } from './markdown.js';

/** Writes every report of a judged run into `dir`; `redact` masks secrets in what is written. */
export async function writeReports(
  dir: string,
  input: ReportInput,
  redact: (text: string) => string,
): Promise<FileResult[]> {
  const summary = input.summary;
  const written: FileResult[] = [];
  const build = async (file: string, text: () => string): Promise<void> => {
    let content: string;
    try {
      content = redact(text());
    } catch (error) {
      written.push({ file: join(dir, file), error: `could not be built: ${(error as Error).message}` });
      return;
    }
    written.push(await writeAtomically(join(dir, file), content));
  };
  await build('junit.xml', () => junitXml(summary, input.comparison));
  // Built once for report.md and report.html; when it cannot be, both say so.
  let content: ReportContent | Error;
  try {
    content = reportContent(input);
  } catch (error) {
    content = error as Error;
  }
  const from = (render: (c: ReportContent) => string) => (): string => {
    if (content instanceof Error) throw content;
    return render(content);
  };
  await build('report.md', from(reportMarkdown));
  await build('report.html', from(reportHtml));
  const charts = content instanceof Error ? runCharts(summary) : content.charts;
  if (input.pngCharts === false) {
    // Judged again with --no-charts: every PNG in charts/ is removed (ours, or any left there), so that the
    // folder, and the manifest that vouches for it, never holds a chart this judgement did not draw.
    // Only regular files of a real charts/ folder: a link is never followed (a folder holding one is refused before
    // this).
    if ((await lstat(join(dir, 'charts')).catch(() => undefined))?.isDirectory() === true) {
      const left = await readdir(join(dir, 'charts'), { withFileTypes: true }).catch(() => []);
      for (const entry of left.filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.png')))
        await removeRegular(join(dir, 'charts', entry.name)).catch(() => {});
      // Only when empty: nothing else in it is ours to remove.
      await rmdir(join(dir, 'charts')).catch(() => {});
    }
    return written;
  }
  await mkdir(join(dir, 'charts')).catch(() => {});
  // Never drawn through a link: charts/ must be the folder's own.
  const chartsIsFolder = (await lstat(join(dir, 'charts')).catch(() => undefined))?.isDirectory() === true;
  for (const chart of charts) {
    const file = join(dir, 'charts', `${chart.name}.png`);
    if (!chartsIsFolder) {
      written.push({ file, error: `${join(dir, 'charts')} is not a folder of the run's own` });
      continue;
    }
    try {
      // chart.js and the canvas load only when a chart is drawn (once): --no-charts never pays for them.
      const { renderPng } = await import('./png.js');
      written.push(await writeAtomically(file, renderPng(chart)));
    } catch (error) {
      written.push({ file, error: `could not be drawn: ${(error as Error).message}` });
    }
  }
  return written;
}

/**
 * Writes brief.md: the brief for a support ticket, naming the manifest.json it belongs to. Written after the manifest
 * (which cannot list it); `loadproof verify` checks the hash it names.
 */
export async function writeBrief(
  dir: string,
  input: ReportInput,
  manifestSha256: string,
  redact: (text: string) => string,
): Promise<FileResult> {
  const file = join(dir, BRIEF_FILE);
  try {
    return await writeAtomically(
      file,
      redact(briefMarkdown(briefContent(input, { manifestSha256, clientId: input.briefClientId }))),
    );
  } catch (error) {
    return { file, error: `could not be built: ${(error as Error).message}` };
  }
}
