/**
 * The mock in its own worker thread: what an embedded run starts, so that the mock
 * does not share the load generator's event loop. The same server as `startMockServer`, over real
 * HTTP on loopback; its stats and log are read over HTTP (GET /__mock/stats, /__mock/log).
 * `close()` closes the server, then the thread ends: nothing of it keeps the process alive.
 */
import { Worker } from 'node:worker_threads';

import { newStallCells, RunFailure, type StallCells, UsageError } from '../core/index.js';
import type { ProfileName } from '../spec/index.js';
import type { MockLag } from './loop-lag.js';
import type { MockServer, MockServerOptions } from './server.js';

/** Messages from the worker. */
export type FromWorker =
  | {
      readonly kind: 'listening';
      readonly url: string;
      readonly audience: string;
      readonly clientId: string;
      readonly clientSecret: string;
      readonly profile: ProfileName;
      readonly timeScale: number;
    }
  | { readonly kind: 'failed'; readonly usage: boolean; readonly message: string; readonly hint?: string }
  | { readonly kind: 'lag'; readonly lag: MockLag }
  | { readonly kind: 'closed' };

/** Messages to the worker. */
export type ToWorker = { readonly kind: 'close' } | { readonly kind: 'lag' };

/**
 * A mock server running in a worker thread: the same as a {@link MockServer} but for its stats, which are read over
 * HTTP (`/__mock/stats`); `close()` also ends the thread. `lag()` says how far the thread's own event loop fell behind
 * since the last call (or the start), and starts counting again: the run reads it at the load's start and end.
 * `stallCells`: the thread's stalls so far, in shared memory (src/core/stall-meter.ts), which the run's client reads
 * when a deadline passes.
 */
export type MockThread = Omit<MockServer, 'stats'> & { lag(): Promise<MockLag>; readonly stallCells: StallCells };

/** What the worker is given. */
export interface MockWorkerData {
  readonly options: MockThreadOptions;
  readonly stallCells: StallCells;
}

/** How long a closing worker may take before it is terminated (wall ms). */
const CLOSE_GRACE_MS = 5000;

/** The options a worker can be given: all of MockServerOptions but an injected clock (a thread has its own). */
export type MockThreadOptions = Omit<MockServerOptions, 'clock'>;

/** Starts the mock in a worker thread; resolves once it listens, rejects as startMockServer would (UsageError). */
export function startMockThread(options: MockThreadOptions = {}): Promise<MockThread> {
  // Beside this file's code: dist/mock/worker.js, or the bundle's own entry dist/bundle/worker.js.
  const stallCells = newStallCells();
  const workerData: MockWorkerData = { options, stallCells };
  const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData });
  return new Promise<MockThread>((resolve, reject) => {
    const onExit = (code: number): void =>
      reject(new RunFailure('RUN_FAILED', `the embedded mock's thread ended before it listened (exit code ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: FromWorker) => {
      worker.off('exit', onExit);
      worker.off('error', reject);
      if (message.kind === 'failed') {
        void worker.terminate();
        reject(
          message.usage
            ? new UsageError(message.message, message.hint)
            : new RunFailure('RUN_FAILED', `the embedded mock failed to start: ${message.message}`),
        );
        return;
      }
      if (message.kind !== 'listening') return;
      // An error thrown inside the thread later ends it; the run then sees its target gone.
      worker.on('error', (error) => process.emitWarning(`loadproof mock thread: ${error.message}`));
      let closing: Promise<void> | undefined;
      const close = (): Promise<void> => {
        closing ??= new Promise<void>((done) => {
          const force = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
          worker.once('exit', () => {
            clearTimeout(force);
            done();
          });
          worker.postMessage({ kind: 'close' } satisfies ToWorker);
        });
        return closing;
      };
      const { url, audience, clientId, clientSecret, profile, timeScale } = message;
      resolve({
        url,
        audience,
        clientId,
        clientSecret,
        profile,
        timeScale,
        close,
        lag: () => askLag(worker),
        stallCells,
      });
    });
  });
}

/** The thread's lag since the last ask; replies come in the order asked. */
function askLag(worker: Worker): Promise<MockLag> {
  return new Promise<MockLag>((resolve, reject) => {
    const onExit = (): void =>
      reject(new RunFailure('RUN_FAILED', "the embedded mock's thread ended before it said its lag"));
    const onMessage = (message: FromWorker): void => {
      if (message.kind !== 'lag') return;
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(message.lag);
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.postMessage({ kind: 'lag' } satisfies ToWorker);
  });
}
