/**
 * `loadproof report <run-dir>`: judges a finished run again, offline, from its folder (read by
 * src/run-folder/read.ts: the scenario copy, run.json and events.ndjson) and writes summary.json and every
 * report again. Nothing is sent. A partial run's folder is judged from the events it wrote.
 */
import { join, relative } from 'node:path';
import { Interrupted, readRegular, type FileResult, writeAtomically, EXIT } from '../core/index.js';
import { type BaselineComparison, COMPARISON_FILE, exitWithComparison, parseComparison, type Judgement, summaryJson } from '../judge/index.js';
import { readJudgedFolder } from './read.js';
import { ManifestUnreadable, type PreviousManifest, verifyFolder, writeManifest } from './manifest.js';
import { writeReports } from '../report/index.js';

export interface FolderJudgement extends Judgement {
  readonly summaryPath: string;
  /** summary.json's write, and its error if it could not be written. */
  readonly written: FileResult;
  /** What the reader should know about the folder (a cut last line). */
  readonly notes: readonly string[];
  /** The reports' writes (junit.xml, …, manifest.json last), each with its error if it could not be written. */
  readonly reports: readonly FileResult[];
  /** SHA-256 of the manifest.json written, or null when it could not be. */
  readonly manifestSha256: string | null;
}

export interface JudgeFolderOptions {
  readonly now: () => Date;
  /** False (--no-charts): no PNG chart is drawn, and any drawn before is removed. */
  readonly pngCharts?: boolean;
  /**
   * A stop signal (SIGINT/SIGTERM): taken until the first file is written (nothing is changed, exit 130);
   * after that the folder is finished whole first, so it is never left half judged again.
   */
  readonly signal?: AbortSignal;
  /** Awaited just before the first file is written (a seam for the signal tests). */
  readonly beforeWriting?: () => Promise<void>;
  /** The folder was just made (by merge): its manifest is the first, with no history before it. */
  readonly firstManifest?: boolean;
}

export async function judgeFolder(dir: string, options: JudgeFolderOptions): Promise<FolderJudgement> {
  const folder = await readJudgedFolder(dir, options.signal);
  const { run, end, scenario } = folder;
  const reportedAt = options.now();
  const judge = (more: readonly FileResult[]): Judgement => folder.judge(reportedAt, more);
  // Before anything is rewritten: whether the folder was still what its manifest listed. A new manifest
  // would vouch for edited files; it records this instead, and the reader is told.
  const previous = options.firstManifest === true ? null : await previousManifest(dir, !folder.partial);
  const allNotes = previous === null || previous.intact ? [...folder.notes] : [...folder.notes, `the folder did not match its manifest.json before this report (${describeChanges(previous)}): the new manifest.json records that`];
  // A run made with --baseline keeps its comparison: the reports carry it again, and so does the exit.
  const comparison = await readComparison(dir, allNotes);
  // The run says it was compared: without its comparison the folder's evidence is not whole (exit 4), however the run went.
  const comparisonLost = run.baseline !== undefined && comparison === undefined;
  if (comparisonLost) allNotes.push(`run.json says this run was compared with --baseline ${run.baseline}, but its ${COMPARISON_FILE} is gone or unusable: the exit is 4, since the run's own exit depended on it`);
  let judgement = judge([]);
  const summaryPath = join(dir, 'summary.json');
  await options.beforeWriting?.();
  // The last moment a signal leaves the folder as it was; from here on it is written whole.
  if (options.signal?.aborted === true) throw new Interrupted(`stopped by a signal before ${dir} was written: nothing in it was changed`);
  // The folder's files were masked when the run wrote them: nothing secret is known here to mask.
  const reports = await writeReports(dir, { summary: judgement.summary, run: { ...run, end }, scenario, ...(comparison === undefined ? {} : { comparison }), pngCharts: options.pngCharts !== false }, (text) => text);
  const reportFailures = reports.filter((f) => f.error !== null).map((f) => ({ ...f, file: relative(dir, f.file) }));
  if (reportFailures.length > 0) judgement = judge(reportFailures);
  // Atomically: judging a folder again replaces its summary.json, which a failed write must not destroy.
  const written = await writeAtomically(summaryPath, summaryJson(judgement.summary));
  if (written.error !== null) judgement = judge([...reportFailures, { file: 'summary.json', error: written.error }]);
  // Not when summary.json could not be rewritten: the old one stays, with the manifest that matches it.
  const manifest = written.error === null ? await writeManifest(dir, run, judgement.summary, scenario, (text) => text, previous) : { file: join(dir, 'manifest.json'), error: 'not rewritten, since summary.json could not be', sha256: null };
  return { ...judgement, exitCode: (manifest.error !== null || comparisonLost) && judgement.exitCode !== EXIT.runFailed ? EXIT.runFailed : exitWithComparison(judgement.exitCode, comparison), summaryPath, written, notes: allNotes, reports: [...reports, manifest], manifestSha256: manifest.sha256 };
}

/** The folder's comparison.json, when it has one that can be used; a note says why not otherwise. */
async function readComparison(dir: string, notes: string[]): Promise<BaselineComparison | undefined> {
  let text: string;
  try {
    text = await readRegular(join(dir, COMPARISON_FILE));
  } catch (error) {
    if (!/ENOENT/.test((error as Error).message)) notes.push(`${COMPARISON_FILE} cannot be read (${(error as Error).message}): the reports leave the baseline out`);
    return undefined;
  }
  const comparison = parseComparison(text);
  if (typeof comparison === 'string') {
    notes.push(`${COMPARISON_FILE}: ${comparison}; the reports leave the baseline out`);
    return undefined;
  }
  return comparison;
}

/**
 * The folder's manifest as it was, checked. Null only when a partial run left none; a finished run's folder
 * without a manifest that can be read has lost its history, and the new manifest says so (not intact), so
 * that rewriting it never launders an edit.
 */
async function previousManifest(dir: string, finished: boolean): Promise<PreviousManifest | null> {
  try {
    const v = await verifyFolder(dir);
    return { sha256: v.manifestSha256, intact: v.intact, ...(v.history === null ? {} : { history: v.history }), changed: v.changed, missing: v.missing, unlisted: v.unlisted };
  } catch (error) {
    if (!(error instanceof ManifestUnreadable)) throw error;
    if (error.message === 'missing' && !finished) return null;
    return { sha256: error.sha256, intact: false, history: `the finished run's manifest.json was ${error.message === 'missing' ? 'missing' : `not a manifest (${error.message})`} when loadproof report wrote this one`, changed: [], missing: [], unlisted: [] };
  }
}

const describeChanges = (p: PreviousManifest): string =>
  p.history !== undefined && p.changed.length + p.missing.length + p.unlisted.length === 0 ? p.history : [...p.changed.map((f) => `changed: ${f}`), ...p.missing.map((f) => `missing: ${f}`), ...p.unlisted.map((f) => `not in it: ${f}`)].join(', ');

