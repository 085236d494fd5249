/**
 * The files a judged run gets beside summary.json, all built from the summary (and run.json), so that
 * `loadproof report` rebuilds them from the run folder (a crashed run's included, marked partial).
 * Each is written whole or not at all; a failure is returned with its reason, never thrown, so that
 * one report that cannot be written costs none of the others. The manifest comes last: it hashes
 * every other file, summary.json included.
 */
import { lstat, mkdir, readdir, rmdir } from 'node:fs/promises';
import { removeRegular } from '../core/run-folder.js';
import { join } from 'node:path';
import type { RunRecord, Summary } from '../judge/index.js';
import { type ReportContent, type ReportInput, reportContent } from './content.js';
import { reportHtml } from './html.js';
import { reportMarkdown } from './markdown.js';
import { type FileResult, writeAtomically } from '../run/output.js';
import type { Scenario } from '../scenario/index.js';
import { runCharts } from './charts.js';
import { junitXml } from './junit.js';
import { renderPng } from './png.js';
import { MANIFEST_FILE, type PreviousManifest, buildManifest, manifestText, sha256Text } from './manifest.js';

/** Writes every report of a judged run into `dir`; `redact` masks secrets in what is written. */
export async function writeReports(dir: string, input: ReportInput, redact: (text: string) => string): Promise<FileResult[]> {
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
    // Only regular files of a real charts/ folder: a link is never followed (a folder holding one is refused before this).
    if ((await lstat(join(dir, 'charts')).catch(() => undefined))?.isDirectory() === true) {
      const left = await readdir(join(dir, 'charts'), { withFileTypes: true }).catch(() => []);
      for (const entry of left.filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.png'))) await removeRegular(join(dir, 'charts', entry.name)).catch(() => {});
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
      written.push(await writeAtomically(file, renderPng(chart)));
    } catch (error) {
      written.push({ file, error: `could not be drawn: ${(error as Error).message}` });
    }
  }
  return written;
}

/** The seeds that make a scenario's plan and payloads repeatable. */
export const scenarioSeeds = (scenario: Scenario): Record<string, number> => ({ arrivals: scenario.arrivals.seed, payload: scenario.payload.seed });

export interface ManifestWrite extends FileResult {
  /** SHA-256 of manifest.json as written (hex); null when it could not be written. */
  readonly sha256: string | null;
}

/** Writes manifest.json, last: a SHA-256 of every other file of the folder. */
export async function writeManifest(dir: string, run: RunRecord, summary: Summary, scenario: Scenario, redact: (text: string) => string, previous: PreviousManifest | null = null): Promise<ManifestWrite> {
  try {
    const text = redact(manifestText(await buildManifest(dir, run, summary, scenarioSeeds(scenario), previous)));
    const written = await writeAtomically(join(dir, MANIFEST_FILE), text);
    return { ...written, sha256: written.error === null ? sha256Text(text) : null };
  } catch (error) {
    // A file that cannot be read to hash it: the manifest is not written, and says why.
    return { file: join(dir, MANIFEST_FILE), error: (error as Error).message, sha256: null };
  }
}
