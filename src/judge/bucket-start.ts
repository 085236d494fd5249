/**
 * What is known of the client's token bucket when a run's first request was sent, and how the envelope's findings say
 * it. A run right after other traffic finds the bucket anywhere from empty to full, and nothing in the run tells which.
 */
import { formatDuration } from '../scenario/index.js';
import type { RunRecord } from './run-record.js';

/** What the run knows of the bucket at its start. */
export type BucketStart =
  /** Nothing: judged from an empty bucket. */
  | { readonly known: 'nothing' }
  /**
   * The user declared the client idle this long before the run (model ms): the refill of that time, up to full.
   * `declaredAfterAt`: when it was declared after the run (loadproof report), which every finding then says.
   */
  | { readonly known: 'idle'; readonly idleBeforeMs: number; readonly declaredAfterAt?: string }
  /** The run started its own mock, whose bucket nothing else had touched: full. */
  | { readonly known: 'own-mock' };

/**
 * What a run's record tells of the bucket at its start: its own mock's is full; else what the user declared (a folder
 * written before declarations were recorded has only the idle time: said as declared, by whom not known).
 */
export function bucketStartOf(run: Pick<RunRecord, 'target' | 'idleBefore' | 'idleBeforeMs'>): BucketStart {
  if (run.target.kind === 'embedded-mock') return { known: 'own-mock' };
  const declared = run.idleBefore;
  if (declared !== undefined)
    return {
      known: 'idle',
      idleBeforeMs: declared.ms,
      ...(declared.declaredBy === 'report' ? { declaredAfterAt: declared.at } : {}),
    };
  return run.idleBeforeMs === undefined ? { known: 'nothing' } : { known: 'idle', idleBeforeMs: run.idleBeforeMs };
}

/** The start as judged: what was known, the tokens it gives, and the idle time that would have filled the bucket. */
export interface JudgedStart {
  readonly known: BucketStart['known'];
  /** The declared idle time (model s); null unless declared. */
  readonly idleBeforeS: number | null;
  /** Tokens the bucket surely held at the run's first send. */
  readonly tokens: number;
  /** Whether that is the whole bucket (the judgement then is what a full start gives). */
  readonly full: boolean;
  /** How long a client must send nothing for its bucket to be full again (model s): capacity ÷ refill. */
  readonly fullAfterIdleS: number;
  /** The assumption in words, as every finding states it. */
  readonly assumption: string;
}

/** The start judged against a bucket of `capacity` tokens refilled at `refillRpm`. */
export function judgeStart(start: BucketStart, capacity: number, refillRpm: number): JudgedStart {
  const fullAfterIdleS = Math.ceil((capacity / refillRpm) * 60);
  const idleBeforeMs = start.known === 'idle' ? start.idleBeforeMs : null;
  const tokens =
    start.known === 'own-mock'
      ? capacity
      : idleBeforeMs === null
        ? 0
        : Math.min(capacity, (refillRpm / 60_000) * idleBeforeMs);
  const full = tokens >= capacity;
  const bucket = full ? 'a full bucket' : tokens === 0 ? 'an empty bucket' : `${tokens.toFixed(1)} tokens`;
  const declared =
    start.known === 'idle' && start.declaredAfterAt !== undefined
      ? `declared after the run (loadproof report, ${start.declaredAfterAt})`
      : 'declared';
  const why =
    start.known === 'own-mock'
      ? 'the run started its own mock'
      : idleBeforeMs === null
        ? "nothing is known of the client's traffic before the run"
        : `${declared}: ${formatDuration(idleBeforeMs)} idle before the run`;
  return {
    known: start.known,
    idleBeforeS: idleBeforeMs === null ? null : idleBeforeMs / 1000,
    tokens,
    full,
    fullAfterIdleS,
    assumption: `judged from ${bucket} at the start (${why})`,
  };
}

/** How to declare an idle time of `idle`: on run, or after it on report (which judges the folder again). */
const declareIdle = (idle: string): string =>
  `--idle-before ${idle} on loadproof run, or after it: loadproof report <run-folder> --idle-before ${idle}`;

/**
 * What a phase's 429s that only a full start makes findings say: how to declare the idle time, when the client had one.
 */
export function fullStartHint(start: JudgedStart, more: number): string {
  if (start.full || more <= 0) return '';
  const idle = formatDuration(start.fullAfterIdleS * 1000);
  return `; ${more} more would be findings from a full bucket: if the client sent nothing for ${idle} before the run, declare it (${declareIdle(idle)})`;
}

/**
 * Why a phase with no finding is not a pass when a full start gives `ifFull` findings: nothing in the run tells a
 * limiter tighter than documented from a bucket drained before the run.
 */
export function undecidedStart(start: JudgedStart, ifFull: number): string {
  const idle = formatDuration(start.fullAfterIdleS * 1000);
  return `but ${ifFull} would be findings from a full bucket, and nothing in the run tells how full it was (a limiter tighter than documented, or traffic just before the run): inconclusive. If the client sent nothing for ${idle} before the run, declaring it decides (${declareIdle(idle)}); otherwise run again after ${idle} without traffic`;
}
