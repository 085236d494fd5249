/** A duration given on the command line (`--idle-before 10m`), read with the scenario files' grammar. */
import { UsageError } from '../core/index.js';
import { DURATION_FORM, parseDurationMs } from './duration.js';

/** Its milliseconds, or a UsageError naming the flag, the value given and the form expected (exit 2, nothing sent). */
export function parseDurationFlag(flag: string, text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined || !Number.isFinite(ms))
    throw new UsageError(
      `${flag}: expected a duration such as 10m or 1h30m (${DURATION_FORM}), got ${JSON.stringify(text)}`,
      'nothing was sent',
    );
  return ms;
}
