import type { Clock } from '../core/index.js';

/** Resolves once `clock` reaches `atMs`, or at once when `stop` aborts; either way its timer and listener are gone. */
export function sleepUntilOrStop(clock: Clock, atMs: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      cancel();
      stop?.removeEventListener('abort', done);
      resolve();
    };
    const cancel = clock.setTimer(atMs, done);
    if (stop?.aborted === true) done();
    else stop?.addEventListener('abort', done, { once: true });
  });
}
