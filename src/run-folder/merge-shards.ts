/**
 * The checks `loadproof merge` makes before it writes anything: the folders given are every shard of one
 * plan, each finished whole and as its run left it; any other set is refused with the reason.
 */
import { join } from 'node:path';

import { UsageError } from '../core/index.js';
import type { RunEnd, RunRecord } from '../judge/index.js';
import { isShard, MAX_SHARDS } from '../plan/index.js';
import { ManifestUnreadable, verifyFolder } from './manifest-verify.js';

/** A shard's run folder, once checked: its run.json names its shard and has its end. */
export interface ShardFolder {
  readonly dir: string;
  readonly run: RunRecord & {
    readonly shard: { readonly index: number; readonly count: number };
    readonly end: RunEnd;
  };
}

/** The shards, sorted by index, once they are shown to be every shard of one plan, each finished whole. */
export function checkShards(folders: readonly { dir: string; run: RunRecord }[]): ShardFolder[] {
  const shards = checkAreShards(folders);
  const first = shards[0]!;
  for (const s of shards) checkSameRun(first, s);
  const byIndex = shardsByIndex(shards);
  const count = first.run.shard.count;
  checkNoneMissing(byIndex, count);
  for (const s of shards) checkFinished(s, count);
  return [...byIndex.values()].sort((a, b) => a.run.shard.index - b.run.shard.index);
}

/** The folders, once each is shown to be a shard (its run.json names a valid shard). */
function checkAreShards(folders: readonly { dir: string; run: RunRecord }[]): ShardFolder[] {
  if (folders.length === 0)
    throw new UsageError('merge: no run folder given', 'give the folder of every shard of the run');
  const notShard = folders.find((f) => f.run.shard === undefined);
  if (notShard !== undefined)
    throw new UsageError(
      `${notShard.dir}: not a shard (its run.json has no shard: it ran without --shard)`,
      'merge joins the folders of run --shard i/n; nothing was written',
    );
  const badShard = folders.find((f) => !isShard(f.run.shard));
  if (badShard !== undefined)
    throw new UsageError(
      `${join(badShard.dir, 'run.json')}: shard ${JSON.stringify(badShard.run.shard)}, expected {"index": i, "count": n} with 0 ≤ i < n ≤ ${MAX_SHARDS}`,
      'nothing was written',
    );
  return folders as unknown as ShardFolder[];
}

/** Refuses a shard of another plan, scenario copy, start, service or split than the first one. */
function checkSameRun(first: ShardFolder, s: ShardFolder): void {
  if (s.run.planIdentity !== first.run.planIdentity) {
    throw new UsageError(
      `shards of different plans: ${first.dir} ran ${first.run.planIdentity} and ${s.dir} ran ${s.run.planIdentity}`,
      'merge the shards of one run of one scenario (same file, same --time-scale); nothing was written',
    );
  }
  if (s.run.scenarioSha256 !== first.run.scenarioSha256) {
    throw new UsageError(
      `shards of different scenario copies: ${first.dir} (${first.run.scenarioSha256}) and ${s.dir} (${s.run.scenarioSha256}): their thresholds or limits may differ`,
      'nothing was written',
    );
  }
  // One time base: events are in model ms from each shard's own t = 0, which only --start-at makes common.
  if (s.run.startAt === undefined) {
    throw new UsageError(
      `${s.dir}: shard ${s.run.shard.index}/${s.run.shard.count} ran without --start-at: its events are timed from its own start, which no other shard shares`,
      'run every shard with the same --start-at; nothing was written',
    );
  }
  if (s.run.startAt !== first.run.startAt) {
    throw new UsageError(
      `shards without a common start: ${first.dir} started its schedule at ${first.run.startAt} and ${s.dir} at ${s.run.startAt}`,
      'their events have no common time base, so their timelines, rates and 429s cannot be put together: run every shard with the same --start-at; nothing was written',
    );
  }
  // One service: shards that each ran their own embedded mock, or against different URLs, shared no bucket.
  if (s.run.target.kind === 'embedded-mock' || s.run.target.baseUrl !== first.run.target.baseUrl) {
    throw new UsageError(
      `shards of different services: ${first.dir} ran against ${first.run.target.kind === 'embedded-mock' ? 'its own embedded mock' : first.run.target.baseUrl} and ${s.dir} against ${s.run.target.kind === 'embedded-mock' ? 'its own embedded mock' : s.run.target.baseUrl}`,
      'a merge judges one service under the whole plan: give the shards one target.baseUrl (a `loadproof mock` they share, or the real service); nothing was written',
    );
  }
  if (s.run.shard.count !== first.run.shard.count) {
    throw new UsageError(
      `shards of different splits: ${first.dir} is shard ${first.run.shard.index}/${first.run.shard.count} and ${s.dir} is shard ${s.run.shard.index}/${s.run.shard.count}`,
      'nothing was written',
    );
  }
}

/** The shards by index; a shard given twice is refused. */
function shardsByIndex(shards: readonly ShardFolder[]): Map<number, ShardFolder> {
  const byIndex = new Map<number, ShardFolder>();
  for (const s of shards) {
    const other = byIndex.get(s.run.shard.index);
    if (other !== undefined)
      throw new UsageError(
        `shard ${s.run.shard.index}/${s.run.shard.count} given twice: ${other.dir} and ${s.dir}`,
        'give each shard once; nothing was written',
      );
    byIndex.set(s.run.shard.index, s);
  }
  return byIndex;
}

/** Refuses a set of shards that lacks any of the plan's `count`. */
function checkNoneMissing(byIndex: ReadonlyMap<number, ShardFolder>, count: number): void {
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new UsageError(
      `${missing.length} of ${count} shards missing: ${missing
        .slice(0, 10)
        .map((i) => `${i}/${count}`)
        .join(
          ', ',
        )}${missing.length > 10 ? ', …' : ''} (given: ${[...byIndex.keys()].sort((a, b) => a - b).join(', ')})`,
      'a merge judges the whole plan: give every shard; nothing was written',
    );
  }
}

/** Refuses a shard that did not finish, or whose events were not written whole. */
function checkFinished(s: ShardFolder, count: number): void {
  if (s.run.end === null || s.run.end === undefined)
    throw new UsageError(
      `${s.dir}: shard ${s.run.shard.index}/${count} did not finish (its run.json has no end)`,
      'a merge needs every shard whole; `loadproof report` judges that shard alone; nothing was written',
    );
  const lost = s.run.end.files.find((f) => f.file === 'events.ndjson' && f.error !== null);
  if (lost !== undefined)
    throw new UsageError(
      `${s.dir}: shard ${s.run.shard.index}/${count}'s events.ndjson was not written whole (${lost.error})`,
      'its own summary.json stands; the whole plan cannot be judged again; nothing was written',
    );
}

/** The shard's manifest hash, once its folder is shown to be what its manifest lists; refused otherwise. */
export async function intactManifest(shard: ShardFolder): Promise<string> {
  let verification;
  try {
    verification = await verifyFolder(shard.dir);
  } catch (error) {
    if (error instanceof ManifestUnreadable)
      throw new UsageError(
        `${shard.dir}: shard ${shard.run.shard.index}/${shard.run.shard.count} has no manifest that can be read (${error.message})`,
        'a merge vouches only for shards their run left whole; nothing was written',
      );
    throw error;
  }
  if (!verification.intact) {
    throw new UsageError(
      `${shard.dir}: shard ${shard.run.shard.index}/${shard.run.shard.count} is not as its run left it (${[...verification.changed.map((f) => `changed: ${f}`), ...verification.missing.map((f) => `missing: ${f}`), ...verification.unlisted.map((f) => `not in the manifest: ${f}`)].join(', ')})`,
      'loadproof verify shows what changed; a merge vouches only for shards their run left whole; nothing was written',
    );
  }
  return verification.manifestSha256;
}
