/**
 * The window a notice announces: the test starts at any moment from `--at` to `--at` + the start window, and its
 * traffic ends by the latest start plus the run's own length (last arrival and its worst-case answer, as the guard
 * counts it). So a start half an hour late is still what support was told, and the guard, judging the start and
 * the planned end against that window, accepts exactly the starts inside the start window.
 */
import { UsageError } from '../core/index.js';
import { formatDuration, parseDurationFlag } from '../scenario/index.js';

const MINUTE_MS = 60_000;
const QUARTER_HOUR_MS = 15 * MINUTE_MS;
/** A start window shorter than a minute is an instant, which is what `--window` is there to avoid. */
const MIN_WINDOW_MS = MINUTE_MS;
/** Support books a day, not a week: a longer window is better announced as separate tests. */
const MAX_WINDOW_MS = 24 * 60 * MINUTE_MS;

interface NoticeWindow {
  /** The start window's length (ms): the test starts from `start` to `start` + this. */
  readonly startWindowMs: number;
  /** Whether it was given (`--window`) or the default. */
  readonly given: boolean;
  /** The latest start announced (epoch ms). */
  readonly startByMs: number;
  /** When all traffic has ended at the latest: the latest start plus the run's length, up to the whole second. */
  readonly endMs: number;
}

/** `--window <duration>`, checked: a clear error naming the flag, the value and what is expected (exit 2). */
export function parseWindowFlag(text: string): number {
  const ms = parseDurationFlag('--window', text);
  if (ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS)
    throw new UsageError(
      `--window: expected a start window from ${formatDuration(MIN_WINDOW_MS)} to ${formatDuration(MAX_WINDOW_MS)}, such as 45m or 2h, got ${JSON.stringify(text)}`,
      'nothing was sent and no notice was written',
    );
  return ms;
}

/**
 * The window for a run of `runMs` (start to planned end) from `startAtMs`. Without `--window`, the run's own length
 * rounded up to the quarter hour (a start as late as the run is long stays inside), at most the day `--window` allows.
 */
export function noticeWindow(startAtMs: number, runMs: number, windowMs: number | undefined): NoticeWindow {
  const byLength = Math.max(QUARTER_HOUR_MS, Math.ceil(runMs / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
  const startWindowMs = windowMs ?? Math.min(MAX_WINDOW_MS, byLength);
  const startByMs = startAtMs + startWindowMs;
  return {
    startWindowMs,
    given: windowMs !== undefined,
    startByMs,
    endMs: Math.ceil((startByMs + runMs) / 1000) * 1000,
  };
}
