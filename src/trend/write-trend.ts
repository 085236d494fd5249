/**
 * `loadproof trend`: the runs read (read-runs.ts), grouped by scenario and ordered by start (series.ts), each flagged
 * as compare would flag it (flags.ts), written as trend.md, trend.html and one PNG per scenario into the out folder.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { UsageError, writeAtomically } from '../core/index.js';
import { DEFAULT_ALPHA } from '../judge/index.js';
import { trendChart } from './chart.js';
import { trendContent, type TrendSection } from './content.js';
import { flagRuns } from './flags.js';
import { trendHtml } from './html.js';
import { trendMarkdown } from './markdown.js';
import { readRun, readRuns, type SkippedFolder } from './read-runs.js';
import { groupByScenario, phaseFigures, type TrendPoint } from './series.js';

interface TrendOptions {
  readonly dirs: readonly string[];
  readonly out: string;
  /** Each run of the baseline's scenario is compared with it instead of the scenario's first run. */
  readonly baseline?: string | undefined;
  readonly tolerance: number;
}

interface TrendResult {
  readonly sections: readonly {
    readonly scenario: string;
    readonly runs: number;
    readonly flagged: number;
    /** The scenario's latest run is flagged (what CI acts on). */
    readonly latestFlagged: boolean;
  }[];
  readonly skipped: readonly SkippedFolder[];
  readonly files: readonly string[];
}

async function baselinePoint(dir: string | undefined): Promise<TrendPoint | undefined> {
  if (dir === undefined) return undefined;
  const read = await readRun(dir);
  if (!('summary' in read))
    throw new UsageError(
      `--baseline ${dir}: not a usable run (${read.reason})`,
      'name a run folder with its summary.json',
    );
  return { dir, summary: read.summary, phases: read.summary.phases.map(phaseFigures) };
}

async function checkedOut(out: string): Promise<void> {
  if (existsSync(join(out, 'run.json')) || existsSync(join(out, 'summary.json')))
    throw new UsageError(
      `--out ${out}: a run folder, expected a folder of its own for the trend`,
      'a run folder is evidence; nothing was written',
    );
  await mkdir(out, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`--out ${out}: cannot make it (${error.code ?? error.message})`);
  });
}

export async function writeTrend(options: TrendOptions): Promise<TrendResult> {
  const baseline = await baselinePoint(options.baseline);
  const { runs, skipped } = await readRuns(options.dirs);
  if (runs.length === 0)
    throw new UsageError(
      `no usable run among ${options.dirs.join(', ')}${skipped.length > 0 ? `: ${skipped.map((s) => `${s.dir}: ${s.reason}`).join('; ')}` : ''}`,
      'name run folders (reports/<time>-<scenario>) or a folder of them (reports/)',
    );
  await checkedOut(options.out);
  const groups = groupByScenario(runs);
  const sections: TrendSection[] = groups.map((trend, i) => {
    const reference = baseline?.summary.scenario === trend.scenario ? baseline : undefined;
    return {
      trend,
      flags: flagRuns(trend.runs, { tolerance: options.tolerance, alpha: DEFAULT_ALPHA }, reference),
      pngFile: groups.length === 1 ? 'trend.png' : `trend-${i + 1}.png`,
      baselineUsed: reference !== undefined,
    };
  });
  const content = trendContent(sections, skipped, { baseline: options.baseline ?? null, tolerance: options.tolerance });
  const { renderTrendPng } = await import('./png.js');
  const pngs = sections.map((s) => renderTrendPng(trendChart(s)));
  const results = await Promise.all([
    ...sections.map((s, i) => writeAtomically(join(options.out, s.pngFile), pngs[i]!)),
    writeAtomically(join(options.out, 'trend.md'), trendMarkdown(content)),
    writeAtomically(join(options.out, 'trend.html'), trendHtml(content, pngs)),
  ]);
  const failed = results.find((r) => r.error !== null);
  if (failed !== undefined) throw new UsageError(`--out ${options.out}: cannot write ${failed.file} (${failed.error})`);
  return {
    sections: sections.map((s) => ({
      scenario: s.trend.scenario,
      runs: s.trend.runs.length,
      flagged: s.flags.filter((f) => f.flagged).length,
      latestFlagged: s.flags.at(-1)?.flagged ?? false,
    })),
    skipped,
    files: results.map((r) => r.file),
  };
}
