/**
 * `loadproof report <run-dir>`: judges a finished run again, offline, from its folder — the scenario
 * copy, run.json and events.ndjson — and writes summary.json again. Nothing is sent. The plan is
 * rebuilt from the copy and must have the identity the run recorded; every event line must belong
 * to that plan, once. A folder whose run.json has no end (the run was killed, or stopped by a second
 * Ctrl-C) is judged from the events it wrote and marked partial; its last line may have been cut
 * mid-write, and is then left out and said so.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { RunFailure, UsageError } from '../core/errors.js';
import { LOADPROOF_VERSION } from '../core/version.js';
import { EventSink, type Judgement, RUN_RECORD_SCHEMA_VERSION, type RunRecord, judgeRun, parseEventLine, partialEnd, summaryJson } from '../judge/index.js';
import { buildPlan, planIdentity } from '../plan/index.js';
import { parseScenario, readScenarioText } from '../scenario/index.js';
import { type FileResult, writeAtomically } from '../run/output.js';
import { ManifestUnreadable, type PreviousManifest, verifyFolder } from './manifest.js';
import { writeManifest, writeReports } from './write-reports.js';
import { EXIT } from '../core/exit-codes.js';

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

const SCENARIO_COPIES = ['scenario.yaml', 'scenario.json'];

async function readRunRecord(dir: string): Promise<RunRecord> {
  const path = join(dir, 'run.json');
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`${dir}: not a run folder (cannot read run.json: ${error.code ?? error.message})`, 'give the folder a run wrote (reports/<time>-<scenario>)');
  });
  let run: RunRecord;
  try {
    run = JSON.parse(text) as RunRecord;
  } catch {
    throw new UsageError(`${path}: not JSON`, 'run.json is written by loadproof run; it cannot be judged without it');
  }
  if (typeof run !== 'object' || run === null || run.schemaVersion !== RUN_RECORD_SCHEMA_VERSION) {
    throw new UsageError(`${path}: schemaVersion ${JSON.stringify((run as { schemaVersion?: unknown } | null)?.schemaVersion)}, expected ${RUN_RECORD_SCHEMA_VERSION}`, 'it was written by another version of loadproof');
  }
  if (!SCENARIO_COPIES.includes(run.scenarioFile)) throw new UsageError(`${path}: scenarioFile ${JSON.stringify(run.scenarioFile)}, expected one of ${SCENARIO_COPIES.join(', ')}`);
  return run;
}

/** Streams events.ndjson into the sink; a cut last line of a partial run is left out (and returned as a note). */
async function readEvents(path: string, sink: EventSink, partial: boolean): Promise<string[]> {
  const seen = new Uint8Array(sink.plannedRequests);
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  let bad: { number: number; why: string } | undefined;
  try {
    for await (const line of lines) {
      number++;
      if (bad !== undefined) throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the events file was changed after the run');
      if (line === '') continue;
      try {
        const record = parseEventLine(line);
        if (record.seq < seen.length && seen[record.seq] === 1) throw new Error(`seq ${record.seq} appears twice`);
        sink.add(record);
        seen[record.seq] = 1;
      } catch (error) {
        if (error instanceof UsageError) throw error;
        bad = { number, why: (error as Error).message };
      }
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (bad === undefined) return [];
  if (!partial) throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the events file was changed after the run');
  return [`events.ndjson line ${bad.number} was cut mid-write when the run ended (${bad.why}); it is left out`];
}

export async function judgeFolder(dir: string, options: { readonly now: () => Date }): Promise<FolderJudgement> {
  const run = await readRunRecord(dir);
  const scenarioPath = join(dir, run.scenarioFile);
  const scenarioText = await readScenarioText(scenarioPath);
  // Its thresholds, limits and error check judge the run as much as its phases plan it.
  if (`sha256:${createHash('sha256').update(scenarioText).digest('hex')}` !== run.scenarioSha256) {
    throw new UsageError(`${scenarioPath}: changed since the run (run.json has ${run.scenarioSha256})`, 'judging a run again needs the scenario it ran with; nothing was written');
  }
  const scenario = parseScenario(scenarioText, scenarioPath);
  const plan = buildPlan(scenario, { timeScale: run.timeScale });
  const identity = planIdentity(plan);
  if (identity !== run.planIdentity) {
    throw new UsageError(
      `${dir}: the plan rebuilt from ${run.scenarioFile} is not the one that ran (identity ${identity}, run.json says ${run.planIdentity})`,
      `the run was made by loadproof ${run.loadproofVersion}; judge it with that version`,
    );
  }
  const eventsPath = join(dir, 'events.ndjson');
  // A run whose events could not all be written was judged from memory: its own summary stands, and a
  // judgement of part of its events must not replace it.
  const lost = run.end?.files.find((f) => f.file === 'events.ndjson' && f.error !== null);
  if (lost !== undefined) {
    throw new RunFailure('RUN_FAILED', `${eventsPath} was not written whole during the run (${lost.error}): the run cannot be judged again from it`, 'its own summary.json, judged from memory when it ran, stands; nothing was written');
  }
  const sink = new EventSink(plan);
  const partial = run.end === null;
  const notes = await readEvents(eventsPath, sink, partial);
  const lines = sink.recorder.overall.sent + sink.recorder.overall.dropped + sink.recorder.overall.unsent;
  if (!partial && lines !== plan.arrivals) {
    throw new UsageError(`${eventsPath}: ${lines} lines for the ${plan.arrivals} planned requests of a finished run`, 'the events file was changed after the run; nothing was written');
  }
  const end = run.end ?? partialEnd(sink, (await stat(eventsPath)).mtime.toISOString());
  const judge = (more: readonly FileResult[]): Judgement => judgeRun(plan, sink, { run, end, partial, moreFiles: more, reportedAt: options.now().toISOString(), judgedBy: LOADPROOF_VERSION });
  // Before anything is rewritten: whether the folder was still what its manifest listed. A new manifest
  // would vouch for edited files; it records this instead, and the reader is told.
  const previous = await previousManifest(dir);
  const allNotes = previous === null || previous.intact ? notes : [...notes, `the folder did not match its manifest.json before this report (${describeChanges(previous)}): the new manifest.json records that`];
  let judgement = judge([]);
  const summaryPath = join(dir, 'summary.json');
  // The folder's files were masked when the run wrote them: nothing secret is known here to mask.
  const reports = await writeReports(dir, { summary: judgement.summary, run: { ...run, end }, scenario }, (text) => text);
  const reportFailures = reports.filter((f) => f.error !== null).map((f) => ({ ...f, file: relative(dir, f.file) }));
  if (reportFailures.length > 0) judgement = judge(reportFailures);
  // Atomically: judging a folder again replaces its summary.json, which a failed write must not destroy.
  const written = await writeAtomically(summaryPath, summaryJson(judgement.summary));
  if (written.error !== null) judgement = judge([...reportFailures, { file: 'summary.json', error: written.error }]);
  // Not when summary.json could not be rewritten: the old one stays, with the manifest that matches it.
  const manifest = written.error === null ? await writeManifest(dir, run, judgement.summary, scenario, (text) => text, previous) : { file: join(dir, 'manifest.json'), error: 'not rewritten, since summary.json could not be', sha256: null };
  return { ...judgement, exitCode: manifest.error !== null && judgement.exitCode !== EXIT.runFailed ? EXIT.runFailed : judgement.exitCode, summaryPath, written, notes: allNotes, reports: [...reports, manifest], manifestSha256: manifest.sha256 };
}

/** The folder's manifest as it was, checked: null when it had none (or none that can be read). */
async function previousManifest(dir: string): Promise<PreviousManifest | null> {
  try {
    const v = await verifyFolder(dir);
    return { sha256: v.manifestSha256, intact: v.intact, changed: v.changed, missing: v.missing, unlisted: v.unlisted };
  } catch (error) {
    if (error instanceof ManifestUnreadable) return null;
    throw error;
  }
}

const describeChanges = (p: PreviousManifest): string =>
  [...p.changed.map((f) => `changed: ${f}`), ...p.missing.map((f) => `missing: ${f}`), ...p.unlisted.map((f) => `not in it: ${f}`)].join(', ');

