/**
 * `loadproof trend`: the runs read (read-runs.ts), grouped by scenario and ordered by start (series.ts), each flagged
 * as compare would flag it (flags.ts), written as trend.md, trend.html and one PNG per scenario into the out folder.
 */
import { join } from 'node:path';

import { echoValue, UsageError, writeAtomically } from '../core/index.js';
import { DEFAULT_ALPHA } from '../judge/index.js';
import { trendChart } from './chart.js';
import { plural, trendContent, type TrendSection } from './content.js';
import { flagRuns } from './flags.js';
import { trendHtml } from './html.js';
import { trendMarkdown } from './markdown.js';
import { checkedOut } from './out-folder.js';
import { readRun, readRuns, type SkippedFolder } from './read-runs.js';
import { groupByScenario, phaseFigures, type TrendPoint } from './series.js';
import { flagCompleteRuns, stoppedEarly } from './stopped-early.js';

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
    /** "smoke: 3 runs, 1 flagged (the latest among them)": the line the terminal shows. */
    readonly line: string;
  }[];
  readonly skipped: readonly SkippedFolder[];
  readonly files: readonly string[];
}

async function baselinePoint(dir: string | undefined): Promise<TrendPoint | undefined> {
  if (dir === undefined) return undefined;
  const read = await readRun(dir);
  if (!('summary' in read))
    throw new UsageError(
      `--baseline ${echoValue(dir)}: not a usable run (${read.reason})`,
      'name a run folder with its summary.json',
    );
  const stopped = stoppedEarly(read.summary);
  if (stopped !== null)
    throw new UsageError(
      `--baseline ${echoValue(dir)}: ${stopped}, so its figures are of part of its plan`,
      'name a run that ran its whole plan',
    );
  return { dir, summary: read.summary, phases: read.summary.phases.map(phaseFigures) };
}

export async function writeTrend(options: TrendOptions): Promise<TrendResult> {
  const baseline = await baselinePoint(options.baseline);
  const { runs, skipped } = await readRuns(options.dirs);
  if (runs.length === 0)
    throw new UsageError(
      `no usable run among ${options.dirs.map(echoValue).join(', ')}${skipped.length > 0 ? `: ${skipped.map((s) => `${echoValue(s.dir)}: ${s.reason}`).join('; ')}` : ''}`,
      'name run folders (reports/<time>-<scenario>) or a folder of them (reports/)',
    );
  await checkedOut(options.out, [
    ...runs.map((r) => r.dir),
    ...(options.baseline === undefined ? [] : [options.baseline]),
  ]);
  const groups = groupByScenario(runs);
  const sections: TrendSection[] = groups.map((trend, i) => {
    const reference = baseline?.summary.scenario === trend.scenario ? baseline : undefined;
    return {
      trend,
      // Runs stopped early are shown but never compared, nor used as the reference.
      flags: flagCompleteRuns(trend.runs, (complete) =>
        flagRuns(complete, { tolerance: options.tolerance, alpha: DEFAULT_ALPHA }, reference),
      ),
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
  if (failed !== undefined)
    throw new UsageError(`--out ${echoValue(options.out)}: cannot write ${failed.file} (${failed.error})`);
  return {
    sections: sections.map((s) => {
      const flagged = s.flags.filter((f) => f.flagged).length;
      const latestFlagged = s.flags.at(-1)?.flagged ?? false;
      return {
        scenario: s.trend.scenario,
        runs: s.trend.runs.length,
        flagged,
        latestFlagged,
        line: `${s.trend.scenario}: ${plural(s.trend.runs.length, 'run')}, ${flagged} flagged${latestFlagged ? ' (the latest among them)' : ''}`,
      };
    }),
    skipped,
    files: results.map((r) => r.file),
  };
}
