/**
 * yargs renders a command's whole help text each time the command runs, to keep it for a failure later
 * (its usage instance's cacheHelpMessage): every line of every option measured for width through
 * Intl.Segmenter, about 0.2 s of CPU on each start of the CLI. Ours never prints that copy (fail() throws a
 * UsageError instead), and --help renders the text afresh, so nothing is cached. A yargs without that
 * method is left as it is (test/cli/loaded-modules.test.ts notices).
 */
import type { Argv } from 'yargs';

interface UsageInstance {
  cacheHelpMessage?: () => void;
}
interface WithInternals {
  getInternalMethods?: () => { getUsageInstance?: () => UsageInstance | undefined };
}

/** `parser`, which no longer renders its help text before running a command. */
export function withoutHelpCache<T>(parser: Argv<T>): Argv<T> {
  const usage = (parser as unknown as WithInternals).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
  return parser;
}
