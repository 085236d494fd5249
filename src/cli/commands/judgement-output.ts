/** What `run` and `report` share: the --json and --inconclusive flags, and how a judgement is printed. */
import type { Argv } from 'yargs';
import { INCONCLUSIVE_POLICIES, type InconclusivePolicy } from '../../core/exit-codes.js';
import { type Summary, summaryJson } from '../../judge/index.js';
import { formatManifestLine, formatSummary } from '../../run/index.js';
import type { Io } from '../io.js';

export function judgementOptions<T>(y: Argv<T>) {
  return y
    .option('json', { type: 'boolean', default: false, describe: 'Print summary.json on stdout instead of the table (the evidence line goes to stderr)' })
    .option('inconclusive', { choices: INCONCLUSIVE_POLICIES, default: 'exit5' as InconclusivePolicy, describe: 'How the exit code takes an inconclusive verdict: exit5 (5), fail (1) or pass (0); summary.json keeps the verdict and its exit 5' })
    .option('charts', {
      type: 'boolean',
      default: true,
      describe: 'Draw the PNG charts (charts/*.png). --no-charts skips them, about 0.3 s of CPU per run, for CI; report.html still draws its charts, and `loadproof report <dir>` draws the PNGs later',
    });
}

/** The table (or summary.json itself, with --json) on stdout, and the evidence line; `summaryPath` null: summary.json was not written. */
export function printJudgement(io: Io, json: boolean, summary: Summary, runDir: string, summaryPath: string | null, manifestSha256: string | null, exitCode: number): void {
  const evidence = formatManifestLine(runDir, manifestSha256);
  if (json) {
    for (const piece of summaryJson(summary)) io.stdout(piece);
    io.stderr(evidence);
  } else {
    io.stdout(formatSummary(summary, summaryPath, exitCode));
    io.stdout(evidence);
  }
}
