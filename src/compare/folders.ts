/** Two run folders compared: each judged again offline (src/judge/folder.ts), in memory, nothing written. */
import { UsageError } from '../core/errors.js';
import { readJudgedFolder } from '../judge/index.js';
import { type ComparedRun, type Comparison, type CompareOptions, compareRuns } from './compare.js';

/** A run folder judged again, as compareRuns takes it. */
export async function comparedRun(dir: string, now: Date = new Date()): Promise<ComparedRun> {
  const folder = await readJudgedFolder(dir);
  return { summary: folder.judge(now).summary, steady: folder.sink.recorder.steady };
}

export async function compareFolders(baselineDir: string, runDir: string, options: CompareOptions): Promise<Comparison> {
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

/** `--tolerance`: "10%" or "0.1", a fraction from 0 to 10 (0 % to 1,000 %). */
export function parseTolerance(text: string): number {
  const trimmed = text.trim();
  const value = trimmed.endsWith('%') ? Number(trimmed.slice(0, -1)) / 100 : Number(trimmed);
  if (trimmed === '' || trimmed === '%' || !Number.isFinite(value) || value < 0 || value > 10) {
    throw new UsageError(`--tolerance: expected a percentage like 10% or a fraction like 0.1 (0 to 1000 %), got ${JSON.stringify(text)}`);
  }
  return value;
}
