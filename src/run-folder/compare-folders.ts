/** Two run folders compared: each judged again offline (src/run-folder/read.ts), in memory, nothing written. */
import { UsageError } from '../core/index.js';
import { type ComparedRun, type CompareOptions, compareRuns, type Comparison } from '../judge/index.js';
import { readJudgedFolder } from './read.js';

/** A run folder judged again, as compareRuns takes it. */
export async function comparedRun(dir: string, now: Date = new Date()): Promise<ComparedRun> {
  const folder = await readJudgedFolder(dir);
  return { summary: folder.judge(now).summary, steady: folder.sink.recorder.steady };
}

export async function compareFolders(
  baselineDir: string,
  runDir: string,
  options: CompareOptions,
): Promise<Comparison> {
  const [baseline, run] = await Promise.all([comparedRun(baselineDir), comparedRun(runDir)]);
  const comparison = compareRuns(baseline, run, options);
  if (comparison.phases.length === 0) {
    throw new UsageError(
      `${runDir} and ${baselineDir} have no phase in common (run: ${run.summary.phases.map((p) => p.name).join(', ')}; baseline: ${baseline.summary.phases.map((p) => p.name).join(', ')})`,
      'compare runs of the same scenario, or of scenarios whose phases share names',
    );
  }
  return comparison;
}

/**
 * `--tolerance`: a percentage ("10%", up to 1000 %) or a fraction from 0 to 1 ("0.1"). A bare number over 1
 * is refused rather than read as a fraction: "10" is more likely 10 % than 1,000 %.
 */
export function parseTolerance(text: string): number {
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const value = percent ? Number(trimmed.slice(0, -1)) / 100 : Number(trimmed);
  if (trimmed === '' || trimmed === '%' || !Number.isFinite(value) || value < 0 || value > (percent ? 10 : 1)) {
    const hint =
      !percent && Number.isFinite(value) && value > 1 && value <= 1000 ? ` (for ${value} %, write ${value}%)` : '';
    throw new UsageError(
      `--tolerance: expected a percentage like 10% (0 to 1000 %) or a fraction like 0.1 (0 to 1), got ${JSON.stringify(text)}${hint}`,
    );
  }
  return value;
}
