/**
 * The OAuth token calls a test makes: one at the start per process that sends the plan, each renewed when its token
 * expires. n shards (`run --shard i/n`) are n processes, so n token calls: the guard's decision and the advance notice
 * count them, so that support is not surprised by n token requests from one client at the start.
 */
import { UsageError } from '../core/index.js';
import { MAX_SHARDS } from '../plan/index.js';

/** `--shards n` of `loadproof notice`: how many processes will send the plan (1 to MAX_SHARDS; 1 when absent). */
export function parseShardCount(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= MAX_SHARDS))
    throw new UsageError(
      `--shards: expected the number of shards the run will be sent in (run --shard i/n: n), a whole number from 1 to ${MAX_SHARDS}, got ${JSON.stringify(text.slice(0, 40))}`,
      'nothing was written',
    );
  return n;
}

/** The token calls as the notice and the guard state them. */
export function tokenCallsText(processes: number): string {
  return processes === 1
    ? 'One OAuth token request at the start, renewed when it expires.'
    : `${processes} OAuth token requests at the start, one per shard (the plan is sent by ${processes} processes, run --shard i/${processes}), each renewed when it expires.`;
}
