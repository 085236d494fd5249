/** `loadproof report <run-dir>`: judge a finished run again, offline. Wires the report module to the process; no logic here. */
import type { Argv } from 'yargs';
import { dirname } from 'node:path';
import { INCONCLUSIVE_POLICIES, type InconclusivePolicy, exitUnder } from '../../core/exit-codes.js';
import { summaryJson } from '../../judge/index.js';
import { formatManifestLine, formatSummary } from '../../run/index.js';
import type { Io } from '../io.js';

export function reportOptions<T>(y: Argv<T>) {
  return y
    .positional('run-dir', { type: 'string', demandOption: true, describe: 'A run folder (reports/<time>-<scenario>): judged again from its scenario copy, run.json and events.ndjson' })
    .option('json', { type: 'boolean', default: false, describe: 'Print summary.json on stdout instead of the table (the evidence line goes to stderr)' })
    .option('inconclusive', { choices: INCONCLUSIVE_POLICIES, default: 'exit5' as InconclusivePolicy, describe: 'How the exit code takes an inconclusive verdict: exit5 (5), fail (1) or pass (0)' });
}

type ReportArgs = Awaited<ReturnType<typeof reportOptions>['argv']>;

export async function runReport(args: ReportArgs, io: Io): Promise<number> {
  // Loaded here, not at start-up: every other command would pay for the judge's modules.
  const { judgeFolder } = await import('../../report/index.js');
  const judged = await judgeFolder(args['run-dir'], { now: () => new Date() });
  for (const note of judged.notes) io.stderr(`loadproof: note: ${note}\n`);
  const exitCode = exitUnder(args.inconclusive, judged.exitCode);
  if (args.json) {
    for (const piece of summaryJson(judged.summary)) io.stdout(piece);
    io.stderr(formatManifestLine(dirname(judged.summaryPath), judged.manifestSha256));
  } else {
    io.stdout(formatSummary(judged.summary, judged.summaryPath, exitCode));
    io.stdout(formatManifestLine(dirname(judged.summaryPath), judged.manifestSha256));
  }
  if (judged.written.error !== null) io.stderr(`loadproof: RUN_FAILED: could not write ${judged.summaryPath} (${judged.written.error}); the table above is the judgement\n`);
  const unwritten = judged.reports.filter((f) => f.error !== null);
  for (const f of unwritten) io.stderr(`loadproof: RUN_FAILED: could not write ${f.file} (${f.error})\n`);
  return exitCode;
}
