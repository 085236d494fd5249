/**
 * Keeps V8's memory reducer from starting full collections of its own. When the allocation rate is low
 * (a run between sparse arrivals), it starts mark-compacts some 8 s after the last one, to give memory
 * back. Measured at 5 requests/s: two in a row, 95 ms of the main thread with pauses of 14
 * and 19 ms, and V8's helper threads woken, about 0.3 % of a core over 20 s; a pause that lands on an
 * arrival is send lag, and in the mock it is latency no service gave. The reducer cannot be turned off
 * once the process runs, but its start delay can, and it is read when the first full collection (while
 * modules load) schedules the reducer: so this is called first thing, by the executable.
 */
import { setFlagsFromString } from 'node:v8';

/** About 23 days: longer than any run that is allowed to start. V8's own is 8 s. */
export const DEFERRED_DELAY_MS = 2 ** 31 - 1;

/** Defers the memory reducer. A V8 that refuses the flag changes nothing. */
export function deferMemoryReducer(setFlags: (flags: string) => void = setFlagsFromString): void {
  try {
    setFlags(`--gc-memory-reducer-start-delay-ms=${DEFERRED_DELAY_MS}`);
  } catch {
    // Flags frozen: V8 reduces memory as it decides; nothing else changes.
  }
}
