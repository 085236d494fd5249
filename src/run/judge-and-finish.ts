/**
 * Step 4 of a run: judge the measurement (src/judge: the same code `loadproof report` runs on the folder) and
 * finish the folder as `report` does (src/run-folder's finishRun: the reports, summary.json, the manifest).
 */
import { join } from 'node:path';

import { collectGarbageNow, type FileResult, LOADPROOF_VERSION } from '../core/index.js';
import {
  type BaselineComparison,
  compareRuns,
  COMPARISON_FILE,
  type EventSink,
  type Judgement,
  judgeRun,
  type RunEnd,
  type RunRecord,
} from '../judge/index.js';
import { dropClaim, finishRun, pointLatestAt } from '../run-folder/index.js';
import type { FolderWrites } from './folder-writes.js';
import type { Measurement } from './measure.js';
import type { OpenedRun } from './open-run.js';
import type { PreparedRun, RunOptions, RunOutcome } from './run-options.js';

/** What the load left to judge: run.json's record and end, the events, and run.json's failed write if it had one. */
interface Measured {
  readonly run: RunRecord;
  readonly end: RunEnd;
  readonly sink: EventSink;
  readonly runFile: FileResult | undefined;
  readonly measured: Measurement;
}

/** Step 4: the judgement, the comparison with --baseline, then the folder finished as `report` finishes it. */
export async function judgeAndFinish(
  options: RunOptions,
  { plan }: PreparedRun,
  { claimed, reportDir }: OpenedRun,
  writes: FolderWrites,
  { run, end, sink, runFile, measured }: Measured,
): Promise<RunOutcome> {
  const judged = (moreFiles: readonly FileResult[]): Judgement =>
    judgeRun(plan, sink, {
      run,
      end,
      partial: false,
      moreFiles: runFile === undefined ? moreFiles : [runFile, ...moreFiles],
      reportedAt: new Date().toISOString(),
      judgedBy: LOADPROOF_VERSION,
    });
  // The load is over: its garbage goes before the judgement and the reports (charts above all) allocate, so that they
  // reuse its space instead of growing the heap past it (a 24-hour soak's peak RSS; src/core/full-collection.ts).
  collectGarbageNow();
  const judgement = judged([]);
  // Against --baseline: kept in the folder (comparison.json), so that `loadproof report` puts it in the reports again.
  const baseline = options.baseline;
  const comparison: BaselineComparison | undefined =
    baseline === undefined
      ? undefined
      : {
          baselineDir: baseline.dir,
          ...compareRuns(
            baseline.run,
            { summary: judgement.summary, steady: sink.recorder.steady },
            { tolerance: baseline.tolerance },
          ),
        };
  const comparisonWritten =
    comparison === undefined
      ? []
      : [await writes.writeJsonAtomically(COMPARISON_FILE, `${JSON.stringify(comparison, null, 2)}\n`)];
  const finished = await finishRun(reportDir, {
    judgement,
    judge: judged,
    run: { ...run, end },
    scenario: plan.scenario,
    comparison,
    pngCharts: options.pngCharts !== false,
    briefClientId: options.briefClientId,
    redact: (text) => options.secrets.redact(text),
    failedBefore: comparisonWritten,
    previous: null,
    again: false,
    // Before the manifest, which lists the folder's files (a folder with files in it is refused by any claim anyway).
    beforeManifest: () => dropClaim(claimed),
  });
  const { summary: summaryWritten, manifest } = finished;
  const writeFailures = [
    ...end.files,
    runFile,
    ...finished.reportFailures,
    summaryWritten,
    ...(summaryWritten.error === null ? [writes.relative(manifest)] : []),
    finished.brief === null ? undefined : writes.relative(finished.brief),
  ]
    .filter((f): f is FileResult => f !== undefined && f.error !== null)
    .map((f) => ({ ...f, file: join(reportDir, f.file) }));
  // Once the folder is whole: `<out>/latest` never points at a run still being written.
  if (options.runDir === undefined) {
    const notPointed = await pointLatestAt(options.outDir, reportDir);
    if (notPointed !== null) options.log(`loadproof: warning: ${notPointed}`);
  }
  const summaryPath = summaryWritten.error === null ? join(reportDir, 'summary.json') : null;
  return {
    exitCode: finished.exitCode,
    reportDir,
    summary: finished.judgement.summary,
    manifestSha256: manifest.sha256,
    failure: measured.failure,
    writeFailures,
    summaryPath,
    comparison,
  };
}
