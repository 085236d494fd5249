/**
 * A finished (or crashed) run folder read back for the offline judge: the scenario copy (its SHA-256
 * checked against run.json), the plan rebuilt from it (its identity checked), and every event line
 * streamed into a sink. A folder whose run.json has no end (the run was killed, or stopped by a second
 * Ctrl-C) is read as partial; its last line may have been cut mid-write, and is then left out and said
 * so. `loadproof report` judges and writes what this reads; `loadproof compare` judges two in memory.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

import {
  checkRunFolder,
  Interrupted,
  LOADPROOF_VERSION,
  readLines,
  readRegular,
  RunFailure,
  TimeScale,
  UsageError,
} from '../core/index.js';
import {
  EventSink,
  type IdleDeclaration,
  type Judgement,
  judgeRun,
  parseEventLine,
  partialEnd,
  RUN_RECORD_SCHEMA_VERSION,
  type RunEnd,
  type RunRecord,
} from '../judge/index.js';
import { buildPlan, isShard, MAX_SHARDS, type Plan, planIdentity, type Shard, shardPlan } from '../plan/index.js';
import { parseScenario, type Scenario, SCENARIO_BOUNDS } from '../scenario/index.js';
import { ndjsonBounds, readDocuments, recordedPieces } from './read-documents.js';
import { checkRunRecord } from './run-record-schema.js';

interface JudgedFolder {
  readonly run: RunRecord;
  /** run.json's end, or, for a partial run, one made from what its events say. */
  readonly end: RunEnd;
  readonly partial: boolean;
  readonly scenario: Scenario;
  readonly plan: Plan;
  readonly sink: EventSink;
  /** What the reader should know about the folder (a cut last line). */
  readonly notes: readonly string[];
  /** The judgement of what was read; `moreFiles`: files that could not be written, for summary.json's `files`. */
  judge(reportedAt: Date, moreFiles?: readonly { readonly file: string; readonly error: string | null }[]): Judgement;
}

const SCENARIO_COPIES = ['scenario.yaml', 'scenario.json'];

/**
 * run.json, read and checked field by field, once the folder is shown to hold only regular files
 * (nothing in it is followed out of it): a bad one is refused (exit 2) naming the file and the field.
 */
export async function readRunRecord(dir: string): Promise<RunRecord> {
  await checkRunFolder(dir);
  const path = join(dir, 'run.json');
  const text = await readRegular(path).catch((error: unknown) => {
    const cannot = /: cannot read it \((.*)\)$/.exec((error as Error).message);
    if (cannot === null) throw error;
    throw new UsageError(
      `${dir}: not a run folder (cannot read run.json: ${cannot[1]})`,
      'give the folder a run wrote (reports/<time>-<scenario>)',
    );
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${path}: not JSON`, 'run.json is written by loadproof run; it cannot be judged without it');
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    (value as { schemaVersion?: unknown }).schemaVersion !== RUN_RECORD_SCHEMA_VERSION
  ) {
    throw new UsageError(
      `${path}: schemaVersion ${JSON.stringify((value as { schemaVersion?: unknown } | null)?.schemaVersion)}, expected ${RUN_RECORD_SCHEMA_VERSION}`,
      'it was written by another version of loadproof',
    );
  }
  const scenarioFile = (value as { scenarioFile?: unknown }).scenarioFile;
  if (typeof scenarioFile !== 'string' || !SCENARIO_COPIES.includes(scenarioFile))
    throw new UsageError(
      `${path}: scenarioFile ${JSON.stringify(scenarioFile)}, expected one of ${SCENARIO_COPIES.join(', ')}`,
    );
  return checkRunRecord(value, path);
}

/** run.json's shard, checked: a hand-edited one must not make the judge read past its plan. */
function checkedShard(shard: unknown, dir: string): Shard {
  if (!isShard(shard))
    throw new UsageError(
      `${join(dir, 'run.json')}: shard ${JSON.stringify(shard)}, expected {"index": i, "count": n} with 0 ≤ i < n ≤ ${MAX_SHARDS}`,
    );
  return shard;
}

/**
 * Streams events.ndjson into the sink, in memory bounded by its longest line and time bounded by the plan
 * (a line more than the plan has is refused); a cut last line of a partial run is left out (and returned as a note).
 */
async function readEvents(
  path: string,
  sink: EventSink,
  partial: boolean,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const seen = new Uint8Array(sink.plannedRequests);
  let bad: { number: number; why: string } | undefined;
  for await (const { line, number } of readLines(path, ndjsonBounds(sink.plannedRequests))) {
    // A stop signal is taken while a long run's events are read, not only once they all are.
    if (number % 4096 === 0 && signal?.aborted === true)
      throw new Interrupted(`stopped by a signal while ${path} was read: nothing was written`);
    if (bad !== undefined)
      throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the events file was changed after the run');
    if (line === '') continue;
    try {
      const record = parseEventLine(line);
      const position = sink.positionOf(record.seq);
      if (seen[position] === 1) throw new Error(`seq ${record.seq} appears twice`);
      sink.add(record);
      seen[position] = 1;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      bad = { number, why: (error as Error).message };
    }
  }
  if (bad === undefined) return [];
  if (!partial)
    throw new UsageError(`${path} line ${bad.number}: ${bad.why}`, 'the events file was changed after the run');
  return [`events.ndjson line ${bad.number} was cut mid-write when the run ended (${bad.why}); it is left out`];
}

/** The run's record with the idle time declared at `report`, when one was: it replaces any declared before. */
function withIdleBefore(run: RunRecord, idle: IdleDeclaration | undefined): RunRecord {
  if (idle === undefined) return run;
  const { idleBeforeMs: _older, ...rest } = run;
  return { ...rest, idleBefore: idle };
}

interface ReadOptions {
  /** A stop signal, taken while the events are read (Interrupted, exit 130). */
  readonly signal?: AbortSignal;
  /** `report --idle-before`: replaces the idle time run.json declares. */
  readonly idleBefore?: IdleDeclaration;
  /** `report --capacity-429-share`: replaces the share run.json records. */
  readonly capacity429Share?: number;
}

export async function readJudgedFolder(dir: string, options: ReadOptions = {}): Promise<JudgedFolder> {
  const recorded = withIdleBefore(await readRunRecord(dir), options.idleBefore);
  const run =
    options.capacity429Share === undefined ? recorded : { ...recorded, capacity429Share: options.capacity429Share };
  const scenarioPath = join(dir, run.scenarioFile);
  const scenarioText = await readRegular(scenarioPath, SCENARIO_BOUNDS.fileBytes);
  // Its thresholds, limits and error check judge the run as much as its phases plan it.
  if (`sha256:${createHash('sha256').update(scenarioText).digest('hex')}` !== run.scenarioSha256) {
    throw new UsageError(
      `${scenarioPath}: changed since the run (run.json has ${run.scenarioSha256})`,
      'judging a run again needs the scenario it ran with; nothing was written',
    );
  }
  const scenario = parseScenario(scenarioText, scenarioPath);
  const whole = buildPlan(scenario, {
    timeScale: TimeScale.of(run.timeScale, 'run.json timeScale').k,
    ...(scenario.mode === 'deid' ? { piecesOfNextDocument: recordedPieces(run, dir) } : {}),
  });
  const identity = planIdentity(whole);
  if (identity !== run.planIdentity) {
    throw new UsageError(
      `${dir}: the plan rebuilt from ${run.scenarioFile} is not the one that ran (identity ${identity}, run.json says ${run.planIdentity})`,
      `the run was made by loadproof ${run.loadproofVersion}; judge it with that version`,
    );
  }
  // A shard is judged on its share of the plan (run.json's planIdentity is the whole plan's).
  const plan = run.shard === undefined ? whole : shardPlan(whole, checkedShard(run.shard, dir));
  const eventsPath = join(dir, 'events.ndjson');
  // A run whose events could not all be written was judged from memory: its own summary stands, and a
  // judgement of part of its events must not replace it.
  const lost = run.end?.files.find((f) => f.file === 'events.ndjson' && f.error !== null);
  if (lost !== undefined) {
    throw new RunFailure(
      'RUN_FAILED',
      `${eventsPath} was not written whole during the run (${lost.error}): the run cannot be judged again from it`,
      'its own summary.json, judged from memory when it ran, stands; nothing was written',
    );
  }
  const sink = new EventSink(plan);
  const partial = run.end === null;
  const notes = await readEvents(eventsPath, sink, partial, options.signal);
  const lines = sink.recorder.overall.sent + sink.recorder.overall.dropped + sink.recorder.overall.unsent;
  if (!partial && lines !== plan.arrivals) {
    throw new UsageError(
      `${eventsPath}: ${lines} lines for the ${plan.arrivals} planned requests of a finished run`,
      'the events file was changed after the run; nothing was written',
    );
  }
  if (sink.documents !== undefined) {
    const lostDocuments = run.end?.files.find((f) => f.file === 'documents.ndjson' && f.error !== null);
    if (lostDocuments !== undefined) {
      throw new RunFailure(
        'RUN_FAILED',
        `${join(dir, 'documents.ndjson')} was not written whole during the run (${lostDocuments.error}): the run cannot be judged again from it`,
        'its own summary.json, judged from memory when it ran, stands; nothing was written',
      );
    }
    notes.push(...(await readDocuments(join(dir, 'documents.ndjson'), sink.documents, plan, partial)));
  }
  const end = run.end ?? partialEnd(sink, (await stat(eventsPath)).mtime.toISOString());
  return {
    run,
    end,
    partial,
    scenario,
    plan,
    sink,
    notes,
    judge: (reportedAt, moreFiles = []) =>
      judgeRun(plan, sink, {
        run,
        end,
        partial,
        moreFiles,
        reportedAt: reportedAt.toISOString(),
        judgedBy: LOADPROOF_VERSION,
      }),
  };
}
