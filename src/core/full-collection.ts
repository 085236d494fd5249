/**
 * One full garbage collection, now: a run calls it after its warm-up and before its first arrival. The
 * warm-up's garbage and what start-up promoted would otherwise set V8's old-generation limit, and the
 * first full collection would come some 36 s into a run at 1,000 req/s with the heap at its peak: a run's
 * peak RSS at 60 s was 1.12-1.16× its peak at 10 s, 1.07-1.08× with this. It costs a few
 * milliseconds before t = 0, none after. Node has no API for it without --expose-gc: the flag is set at
 * run time, which gives a new context a `gc` function.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Collects now; false where this V8 gives no way to (nothing else changes then). */
export function collectGarbageNow(): boolean {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return false;
    (gc as () => void)();
    return true;
  } catch {
    return false;
  }
}
