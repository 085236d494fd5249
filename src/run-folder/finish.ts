/**
 * `loadproof report <run-dir>`: judges a finished run again, offline, from its folder (read by
 * src/run-folder/read.ts: the scenario copy, run.json and events.ndjson) and writes summary.json and every
 * report again. Nothing is sent. A partial run's folder is judged from the events it wrote.
 * finishRun writes a judged run's files in their order (the reports, summary.json, the manifest last), the
 * same for the run as it ends (src/run) as for `report` and `merge` judging a folder again.
 */
import { join, relative } from 'node:path';

import { EXIT, type FileResult, Interrupted, readRegular, writeAtomically } from '../core/index.js';
import {
  type BaselineComparison,
  COMPARISON_FILE,
  exitWithComparison,
  type Judgement,
  parseComparison,
  type RunRecord,
  summaryJson,
} from '../judge/index.js';
import { writeBrief, writeReports } from '../report/index.js';
import type { Scenario } from '../scenario/index.js';
import { type ManifestWrite, type PreviousManifest, writeManifest } from './manifest.js';
import { ManifestUnreadable, verifyFolder } from './manifest-verify.js';
import { readJudgedFolder } from './read.js';

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

interface JudgeFolderOptions {
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
  /**
   * `report --idle-before` (model ms): the client's idle time before the run, declared after it; written to run.json,
   * so that the folder judged again later gives the same verdict.
   */
  readonly idleBeforeMs?: number;
  /** `report --capacity-429-share`: replaces run.json's for this judgement (summary.json says which was used). */
  readonly capacity429Share?: number;
  /** `--brief-client-id`: the client_id brief.md and report.html's brief name (never named unless given). */
  readonly briefClientId?: string;
}

export async function judgeFolder(dir: string, options: JudgeFolderOptions): Promise<FolderJudgement> {
  const reportedAt = options.now();
  const folder = await readJudgedFolder(dir, {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.capacity429Share === undefined ? {} : { capacity429Share: options.capacity429Share }),
    ...(options.idleBeforeMs === undefined
      ? {}
      : { idleBefore: { ms: options.idleBeforeMs, declaredBy: 'report', at: reportedAt.toISOString() } }),
  });
  const { run, end, scenario } = folder;
  const judge = (more: readonly FileResult[]): Judgement => folder.judge(reportedAt, more);
  // Before anything is rewritten: whether the folder was still what its manifest listed. A new manifest
  // would vouch for edited files; it records this instead, and the reader is told.
  const previous = options.firstManifest === true ? null : await previousManifest(dir, !folder.partial);
  const allNotes =
    previous === null || previous.intact
      ? [...folder.notes]
      : [
          ...folder.notes,
          `the folder did not match its manifest.json before this report (${describeChanges(previous)}): the new manifest.json records that`,
        ];
  // A run made with --baseline keeps its comparison: the reports carry it again, and so does the exit.
  const comparison = await readComparison(dir, allNotes);
  // The run says it was compared: without its comparison the folder's evidence is not whole (exit 4), however the run
  // went.
  const comparisonLost = run.baseline !== undefined && comparison === undefined;
  if (comparisonLost)
    allNotes.push(
      `run.json says this run was compared with --baseline ${run.baseline}, but its ${COMPARISON_FILE} is gone or unusable: the exit is 4, since the run's own exit depended on it`,
    );
  const judgement = judge([]);
  const summaryPath = join(dir, 'summary.json');
  await options.beforeWriting?.();
  // The last moment a signal leaves the folder as it was; from here on it is written whole.
  if (options.signal?.aborted === true)
    throw new Interrupted(`stopped by a signal before ${dir} was written: nothing in it was changed`);
  const declared = options.idleBeforeMs === undefined ? [] : [await declareIdle(dir, run)];
  // The folder's files were masked when the run wrote them: nothing secret is known here to mask.
  const finished = await finishRun(dir, {
    judgement,
    judge,
    run: { ...run, end },
    scenario,
    comparison,
    pngCharts: options.pngCharts !== false,
    redact: (text) => text,
    previous,
    again: true,
    evidenceLost: comparisonLost,
    failedBefore: declared.filter((f) => f.error !== null),
    ...(options.briefClientId === undefined ? {} : { briefClientId: options.briefClientId }),
  });
  return {
    ...finished.judgement,
    exitCode: finished.exitCode,
    summaryPath,
    written: { ...finished.summary, file: summaryPath },
    notes: allNotes,
    reports: [...finished.reports, finished.manifest, ...(finished.brief === null ? [] : [finished.brief])],
    manifestSha256: finished.manifest.sha256,
  };
}

/**
 * What a judged run's folder is finished with: by the run as it ends, and by `report` and `merge` judging a folder
 * again.
 */
interface FinishInput {
  /** The judgement of the run, with no file failed yet. */
  readonly judgement: Judgement;
  /**
   * The judgement again, given the files that could not be written (relative to the folder), which summary.json names.
   */
  readonly judge: (moreFiles: readonly FileResult[]) => Judgement;
  /** run.json's record, with its end. */
  readonly run: RunRecord;
  readonly scenario: Scenario;
  readonly comparison: BaselineComparison | undefined;
  readonly pngCharts: boolean;
  /** Masks the secrets in what is written. */
  readonly redact: (text: string) => string;
  /**
   * Writes that failed before the reports (comparison.json), relative to the folder: summary.json names them after the
   * reports'.
   */
  readonly failedBefore?: readonly FileResult[];
  /** The folder's manifest before this one, when the folder is judged again. */
  readonly previous: PreviousManifest | null;
  /** The folder is judged again (report, merge): its summary.json and manifest are rewritten, not written. */
  readonly again: boolean;
  /**
   * Awaited after summary.json, before the manifest (the run drops its claim there: the manifest lists the folder's
   * files).
   */
  readonly beforeManifest?: () => Promise<void>;
  /** The folder's evidence is not whole, whatever is written (a comparison lost): the exit is 4. */
  readonly evidenceLost?: boolean;
  /** `--brief-client-id`: the client_id the brief names (never named unless given). */
  readonly briefClientId?: string | undefined;
}

interface FinishedRun {
  /** The judgement, naming every file that could not be written. */
  readonly judgement: Judgement;
  /**
   * The judgement's exit, or 4 when the manifest could not be written or the evidence is not whole; a comparison's
   * regression is 1.
   */
  readonly exitCode: number;
  /** The reports' writes (junit.xml, …), each with its error if it could not be written. */
  readonly reports: readonly FileResult[];
  /** The writes that failed before summary.json (the reports', then `failedBefore`), relative to the folder. */
  readonly reportFailures: readonly FileResult[];
  /** summary.json's write, relative to the folder. */
  readonly summary: FileResult;
  /** manifest.json's write (or why it was not written), and its SHA-256 when it was. */
  readonly manifest: ManifestWrite;
  /** brief.md's write, after the manifest it names; null when there was no manifest to name. */
  readonly brief: FileResult | null;
}

/**
 * Finishes a judged run's folder, in this order: the reports, then summary.json (which names any report that
 * could not be written), then the manifest, last since it hashes every file above. Each failure is returned, never
 * thrown.
 */
export async function finishRun(dir: string, input: FinishInput): Promise<FinishedRun> {
  let judgement = input.judgement;
  const inFolder = (f: FileResult): FileResult => ({ ...f, file: relative(dir, f.file) });
  const reports = await writeReports(
    dir,
    {
      summary: judgement.summary,
      run: input.run,
      scenario: input.scenario,
      ...(input.comparison === undefined ? {} : { comparison: input.comparison }),
      pngCharts: input.pngCharts,
      ...(input.briefClientId === undefined ? {} : { briefClientId: input.briefClientId }),
    },
    input.redact,
  ).catch((error: unknown) => [
    { file: join(dir, 'junit.xml'), error: `the reports could not be built: ${(error as Error).message}` },
  ]);
  const reportFailures = reports
    .map(inFolder)
    .concat(input.failedBefore ?? [])
    .filter((f) => f.error !== null);
  if (reportFailures.length > 0) judgement = input.judge(reportFailures);
  // Atomically: judging a folder again replaces its summary.json, which a failed write must not destroy; a reader never
  // finds half of one.
  const summary = inFolder(
    await writeAtomically(join(dir, 'summary.json'), redactEach(summaryJson(judgement.summary), input.redact)),
  );
  if (summary.error !== null) judgement = input.judge([...reportFailures, summary]);
  await input.beforeManifest?.();
  // Not over a folder whose summary.json is not the judgement: the manifest would vouch for a mismatched pair
  // (judged again, the old summary.json stays, with the manifest that matches it).
  const manifest: ManifestWrite =
    summary.error === null
      ? await writeManifest(dir, input.run, judgement.summary, input.scenario, input.redact, input.previous)
      : {
          file: join(dir, 'manifest.json'),
          error: `${input.again ? 'not rewritten' : 'not written'}, since summary.json could not be`,
          sha256: null,
        };
  // After the manifest, which it names (and so cannot list it): `verify` checks the hash it names.
  const brief =
    manifest.sha256 === null
      ? null
      : await writeBrief(
          dir,
          {
            summary: judgement.summary,
            run: input.run,
            scenario: input.scenario,
            ...(input.briefClientId === undefined ? {} : { briefClientId: input.briefClientId }),
          },
          manifest.sha256,
          input.redact,
        );
  // A manifest that cannot be written fails the run (exit 4), although summary.json, written before it, cannot say so.
  const exitCode =
    (manifest.error !== null || input.evidenceLost === true) && judgement.exitCode !== EXIT.runFailed
      ? EXIT.runFailed
      : exitWithComparison(judgement.exitCode, input.comparison);
  return { judgement, exitCode, reports, reportFailures, summary, manifest, brief };
}

/** run.json with the idle time declared at `report` (the manifest written after lists it). */
async function declareIdle(dir: string, run: RunRecord): Promise<FileResult> {
  const written = await writeAtomically(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
  return { ...written, file: 'run.json' };
}

/** The folder's comparison.json, when it has one that can be used; a note says why not otherwise. */
async function readComparison(dir: string, notes: string[]): Promise<BaselineComparison | undefined> {
  let text: string;
  try {
    text = await readRegular(join(dir, COMPARISON_FILE));
  } catch (error) {
    if (!/ENOENT/.test((error as Error).message))
      notes.push(`${COMPARISON_FILE} cannot be read (${(error as Error).message}): the reports leave the baseline out`);
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
    return {
      sha256: v.manifestSha256,
      // A brief naming another manifest is written again here; it says nothing of the files the manifest listed.
      intact: v.filesIntact,
      ...(v.history === null ? {} : { history: v.history }),
      changed: v.changed,
      missing: v.missing,
      unlisted: v.unlisted,
    };
  } catch (error) {
    if (!(error instanceof ManifestUnreadable)) throw error;
    if (error.message === 'missing' && !finished) return null;
    return {
      sha256: error.sha256,
      intact: false,
      history: `the finished run's manifest.json was ${error.message === 'missing' ? 'missing' : `not a manifest (${error.message})`} when loadproof report wrote this one`,
      changed: [],
      missing: [],
      unlisted: [],
    };
  }
}

function* redactEach(pieces: Iterable<string>, redact: (text: string) => string): Generator<string> {
  for (const piece of pieces) yield redact(piece);
}

const describeChanges = (p: PreviousManifest): string =>
  p.history !== undefined && p.changed.length + p.missing.length + p.unlisted.length === 0
    ? p.history
    : [
        ...p.changed.map((f) => `changed: ${f}`),
        ...p.missing.map((f) => `missing: ${f}`),
        ...p.unlisted.map((f) => `not in it: ${f}`),
      ].join(', ');
