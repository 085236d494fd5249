/**
 * `loadproof merge <run-dir>...`: the folders of every shard of one plan (`run --shard i/n`) put
 * together as one run folder — the scenario copy, every shard's events.ndjson lines (each request keeps
 * its seq in the whole plan), in mode deid their documents.ndjson lines in document order, and a run.json
 * whose end adds the shards' counts, merges their histograms and their payload records — so that the judge
 * (`loadproof report`'s) judges the whole plan again from the merged
 * events: counts add exactly, latency histograms are rebuilt from every event, and the verdict, the
 * bands and the rate-limit envelope see the traffic the service saw. Shards of different plans,
 * overlapping or missing shards, and shards that did not finish whole are refused, with the reason,
 * before anything is written.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

import {
  Interrupted,
  openRegular,
  publishFolder,
  readRegular,
  releaseFolder,
  UsageError,
  writeAtomically,
  writeWhole,
} from '../core/index.js';
import type { MergedShard, RunEnd, RunRecord } from '../judge/index.js';
import { MsHistogram } from '../recorder/index.js';
import { parseScenario, SCENARIO_BOUNDS } from '../scenario/index.js';
import { type FolderJudgement, judgeFolder } from './finish.js';
import { plannedDocuments, writeMergedDocuments } from './merge-documents.js';
import { mergedPayload } from './merge-payload.js';
import { checkShards, intactManifest, type ShardFolder } from './merge-shards.js';
import { readRunRecord } from './read.js';
import { claimRunFolder, dropClaim, makeRunFolder } from './write.js';

interface MergeOptions {
  /** The shards' run folders, in any order. */
  readonly dirs: readonly string[];
  /** Where the merged folder is made (a new `<time>-<scenario>-merged` folder), unless `runDir` names it. */
  readonly outDir: string;
  /** The exact folder for the merged run: made, or taken if empty (anything in it is refused). */
  readonly runDir?: string;
  /**
   * A stop signal (SIGINT/SIGTERM): until the merged folder takes its name, it stops the merge and leaves no folder
   * (exit 130).
   */
  readonly signal?: AbortSignal;
  /** Awaited when the merged folder is whole, just before it takes its name (a seam for the signal tests). */
  readonly beforeCommit?: () => Promise<void>;
}

/**
 * Merges the shards and judges the merged folder (`report`'s judge), built whole in a hidden sibling
 * folder and renamed into place at the end: a refusal, a failure or a stop signal before that leaves no
 * merged folder at all (and a --run-dir as empty as it was); after it, the folder is complete.
 */
export async function mergeAndJudge(
  options: MergeOptions,
  judge: { readonly now: () => Date; readonly pngCharts: boolean },
): Promise<FolderJudgement> {
  const shards = await readShards(options);
  const first = shards[0]!;
  const scenarioPath = join(first.dir, first.run.scenarioFile);
  const scenarioText = await readRegular(scenarioPath, SCENARIO_BOUNDS.fileBytes);
  // The merged run starts at the common start (the shards' processes started earlier, to wait for it).
  const startedAt = first.run.startAt ?? shards.map((s) => s.run.startedAt).sort()[0]!;
  const name = parseScenario(scenarioText, scenarioPath).name;
  // The name is taken first (an empty folder), so that two merges never build the same one.
  const claimed =
    options.runDir === undefined
      ? { dir: await makeRunFolder(options.outDir, `${name}-merged`, new Date(startedAt)), made: true, token: null }
      : await claimRunFolder(options.runDir, '--run-dir', 'merge');
  const final = claimed.dir;
  const building = join(dirname(await realpath(final)), `.${basename(final)}.merging-${process.pid}`);
  let committed = false;
  const stopped = (): void => {
    if (options.signal?.aborted === true)
      throw new Interrupted(`stopped by a signal before the merged folder was whole: ${final} was not left behind`);
  };
  try {
    await mkdir(building);
    await writeMerged(building, shards, scenarioText, startedAt, options.signal);
    stopped();
    const judged = await judgeFolder(building, {
      ...judge,
      firstManifest: true,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    await options.beforeCommit?.();
    stopped();
    // One rename: the merged folder appears whole, in place of the empty one claimed (its claim marker gone first: a
    // rename needs it empty).
    await dropClaim(claimed);
    await publishFolder(building, await realpath(final)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST')
        throw new UsageError(
          `--run-dir ${final}: claimed by another command while the merge was built (it holds files now)`,
          'nothing of it was touched and the merge was not left behind: merge again into a new folder',
        );
      throw error;
    });
    committed = true;
    const moved = (file: string): string =>
      file.startsWith(building) ? join(final, file.slice(building.length)) : file;
    return {
      ...judged,
      summaryPath: moved(judged.summaryPath),
      written: { ...judged.written, file: moved(judged.written.file) },
      reports: judged.reports.map((f) => ({ ...f, file: moved(f.file) })),
    };
  } catch (error) {
    // The judge's refusals name the files it read: the folder they are in is the merged one.
    if (error instanceof Error) error.message = error.message.replaceAll(building, final);
    throw error;
  } finally {
    if (!committed) {
      // Only what this merge made: the folder built aside (its own name), and the claimed one if it made it and it is
      // still empty.
      await rm(building, { recursive: true, force: true }).catch(() => {});
      await releaseFolder(final, claimed, []);
    }
  }
}

/** Every shard's run.json, checked to be every shard of one plan, finished whole and as its run left it. */
async function readShards(options: MergeOptions): Promise<ShardFolder[]> {
  const shards = checkShards(
    await Promise.all(options.dirs.map(async (dir) => ({ dir, run: await readRunRecord(dir) }))),
  );
  // Each shard as its run left it: a folder changed since (its manifest, or its manifest's history, says so) would have
  // the merge vouch for edits.
  for (const s of shards) manifests.set(s, await intactManifest(s));
  return shards;
}

/** The shards' manifest hashes, as checked by readShards. */
const manifests = new WeakMap<ShardFolder, string>();

/** Writes the merged folder's scenario copy, events and run.json into `dir` (a folder made for them). */
async function writeMerged(
  dir: string,
  shards: readonly ShardFolder[],
  scenarioText: string,
  startedAt: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const first = shards[0]!;
  const failures = [await writeWhole(join(dir, first.run.scenarioFile), scenarioText)];
  const events = createWriteStream(join(dir, 'events.ndjson'), { flags: 'wx' });
  for (const shard of shards) {
    // Only a regular file, never through a link; its lines are checked by the judge, bounded by the plan.
    const { handle } = await openRegular(join(shard.dir, 'events.ndjson'), Number.MAX_SAFE_INTEGER);
    await pipeline(handle.createReadStream(), events, {
      end: false,
      ...(signal === undefined ? {} : { signal }),
    }).catch((error: unknown) => {
      if ((error as Error).name === 'AbortError')
        throw new Interrupted('stopped by a signal before the merged folder was whole: it was not left behind');
      throw error;
    });
  }
  await new Promise<void>((resolve, reject) =>
    events.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  const documents = plannedDocuments(first);
  if (documents !== undefined) await writeMergedDocuments(dir, shards, documents);
  const mergedFrom: MergedShard[] = shards.map((s) => ({
    index: s.run.shard.index,
    dir: s.dir,
    startedAt: s.run.startedAt,
    endedAt: s.run.end.endedAt,
    ...(s.run.end.startLateMs === undefined ? {} : { startLateMs: s.run.end.startLateMs }),
    manifestSha256: manifests.get(s)!,
    ...(s.run.host === undefined ? {} : { host: s.run.host }),
  }));
  const { shard: _shard, host: _host, end: _end, idleBefore: _declared, idleBeforeMs: _idle, ...common } = first.run;
  const run: RunRecord = {
    ...common,
    ...sharedIdle(shards.map((s) => s.run)),
    startedAt,
    mergedFrom,
    end: mergedEnd(shards, first.run.scenarioFile, documents !== undefined),
  };
  failures.push(await writeAtomically(join(dir, 'run.json'), `${JSON.stringify(run, null, 2)}\n`));
  const failed = failures.find((f) => f.error !== null);
  if (failed !== undefined)
    throw new UsageError(
      `${failed.file}: cannot be written (${failed.error})`,
      'the shards are untouched; choose another --out',
    );
}

/**
 * The shards' ends as one: counts added, token latency histograms merged, the worst event-loop delay, the first stop.
 */
function mergedEnd(shards: readonly ShardFolder[], scenarioFile: string, deid: boolean): RunEnd {
  const ends = shards.map((s) => s.run.end);
  const payload = mergedPayload(
    ends.map((e) => e.payload),
    deid,
  );
  const sum = (f: (e: RunEnd) => number): number => ends.reduce((n, e) => n + f(e), 0);
  const worst = (f: (e: RunEnd) => number | null): number | null =>
    ends.some((e) => f(e) === null) ? null : Math.max(...ends.map((e) => f(e)!));
  const tokenLatency = MsHistogram.create();
  for (const e of ends) tokenLatency.add(MsHistogram.decode(e.tokenLatency));
  return {
    endedAt: ends
      .map((e) => e.endedAt)
      .sort()
      .at(-1)!,
    engine: {
      fired: sum((e) => e.engine.fired),
      dropped: sum((e) => e.engine.dropped),
      unsent: sum((e) => e.engine.unsent),
      abandoned: sum((e) => e.engine.abandoned),
      interrupted: ends.some((e) => e.engine.interrupted),
      elapsedMs: Math.max(...ends.map((e) => e.engine.elapsedMs)),
    },
    // A failure outranks a signal, which outranks a threshold: what ended the worst shard ends the merged run.
    // A shard stopped by a signal leaves the merged run partial, a failure of it (exit 4), not an interruption
    // of the merge (130): the judge, and `report` on the merged folder, say so alike.
    stop: mergedStop(shards),
    tokenCalls: ends.some((e) => e.tokenCalls === null) ? null : sum((e) => e.tokenCalls!),
    // The latest shard's lateness: the merged schedule's first arrivals were that late on some shard.
    ...(ends.some((e) => e.startLateMs !== undefined)
      ? { startLateMs: Math.max(...ends.map((e) => e.startLateMs ?? 0)) }
      : {}),
    tokenLatency: tokenLatency.encode(),
    // The first shard's that met one: each says where the service pointed it.
    ...(ends.some((e) => e.firstRedirect !== undefined)
      ? { firstRedirect: ends.find((e) => e.firstRedirect !== undefined)!.firstRedirect! }
      : {}),
    // Percentiles of different processes do not add: the worst shard's stands for the merge (an upper bound).
    eventLoopDelayP99Ms: worst((e) => e.eventLoopDelayP99Ms),
    eventLoopDelayMaxMs: worst((e) => e.eventLoopDelayMaxMs),
    // Each shard's own embedded mock: the one that fell furthest behind stands for the merge.
    ...(ends.some((e) => e.mockLag !== undefined)
      ? {
          mockLag: ends
            .flatMap((e) => (e.mockLag === undefined ? [] : [e.mockLag]))
            .sort((a, b) => b.modelMs - a.modelMs)[0]!,
        }
      : {}),
    ...(payload === undefined ? {} : { payload }),
    files: [
      { file: scenarioFile, error: null },
      { file: 'events.ndjson', error: null },
      ...(deid ? [{ file: 'documents.ndjson', error: null }] : []),
    ],
  };
}

function mergedStop(shards: readonly ShardFolder[]): RunEnd['stop'] {
  const worst = shards
    .filter((s) => s.run.end.stop !== null)
    .sort((a, b) => STOP_RANK[a.run.end.stop!.by] - STOP_RANK[b.run.end.stop!.by])[0];
  if (worst === undefined) return null;
  const stop = worst.run.end.stop!;
  const which = `shard ${worst.run.shard.index}/${worst.run.shard.count}`;
  return stop.by === 'signal'
    ? {
        by: 'failure',
        code: 'SHARD_STOPPED',
        message: `${which} was stopped by a signal (${stop.message}): the merged run is partial`,
      }
    : { ...stop, message: `${which}: ${stop.message}` };
}

const STOP_RANK: Record<NonNullable<RunEnd['stop']>['by'], number> = {
  failure: 0,
  signal: 1,
  threshold: 2,
  unknown: 3,
};

/**
 * The shards shared one bucket: the least idle time all of them declared, if every one did, declared after the run
 * (at the latest such declaration) if any was; a shard written before declarations were recorded leaves who unknown.
 */
function sharedIdle(runs: readonly RunRecord[]): Pick<RunRecord, 'idleBefore' | 'idleBeforeMs'> {
  const ms = runs.map((r) => r.idleBefore?.ms ?? r.idleBeforeMs);
  if (!ms.every((m) => m !== undefined)) return {};
  const least = Math.min(...ms);
  const declared = runs.map((r) => r.idleBefore);
  if (!declared.every((d) => d !== undefined)) return { idleBeforeMs: least };
  const later = declared.filter((d) => d.declaredBy === 'report').map((d) => d.at);
  return later.length === 0
    ? { idleBefore: { ms: least, declaredBy: 'run', at: declared[0]!.at } }
    : { idleBefore: { ms: least, declaredBy: 'report', at: later.sort().at(-1)! } };
}
