/**
 * The reports' entry. The writers of report.md/html, the charts and junit.xml load on the first writeReports:
 * chart.js and the canvas are megabytes, and a command that writes no report (plan, a refused run) never loads them.
 */
import type { FileResult } from '../core/index.js';
import type { ReportInput } from './content-types.js';

export { BRIEF_FILE, briefManifestSha256, parseBriefClientId } from './brief-file.js';
export { capacityHeadline, plateauSentence } from './capacity.js';
export { foldLateNotes } from './late-notes.js';
export { mockDetectorLines, NO_GROUND_TRUTH_LINE, phiHeadline, phiKindTable, phiPhaseTable } from './phi-words.js';
export { inTargetWords, targetText } from './target-text.js';

/** Writes every report of a judged run into `dir` (write-reports.ts); each failure is returned, never thrown. */
export async function writeReports(
  dir: string,
  input: ReportInput,
  redact: (text: string) => string,
): Promise<FileResult[]> {
  return (await import('./write-reports.js')).writeReports(dir, input, redact);
}

/** Writes brief.md, naming the manifest.json written before it (write-reports.ts); returns a failure, never throws. */
export async function writeBrief(
  dir: string,
  input: ReportInput,
  manifestSha256: string,
  redact: (text: string) => string,
): Promise<FileResult> {
  return (await import('./write-reports.js')).writeBrief(dir, input, manifestSha256, redact);
}
