/**
 * The entry of the mock's worker thread (see thread.ts): starts the mock server with the options it
 * was given, says where it listens, and closes it when told to. Its event loop is its own, so the
 * load generator's work never delays the mock's timers, nor the mock's the generator's sends.
 */
import { parentPort, workerData } from 'node:worker_threads';

import { StallMeter } from '../core/index.js';
import { LoopLag } from './loop-lag.js';
import { MODEL_LAG_WALL_MS } from './model-clock.js';
import { type MockServer, startMockServer } from './server.js';
import type { FromWorker, MockWorkerData, ToWorker } from './thread.js';

const port = parentPort;
if (port === null) throw new Error('src/mock/worker.ts runs only as a worker thread');
const post = (message: FromWorker): void => port.postMessage(message);

const { options, stallCells } = workerData as MockWorkerData;
// The thread's stalls, read by the run's client when an answer is late (src/client/http1/deadlines.ts).
const stalls = new StallMeter(stallCells);
stalls.start();
let server: MockServer | undefined;
let loopLag: LoopLag | undefined;
try {
  server = await startMockServer(options);
  const { url, audience, clientId, clientSecret, profile, timeScale } = server;
  // The window the server's model clock runs behind by (none in real time): a delay within it changes nothing.
  loopLag = new LoopLag(timeScale, timeScale === 1 ? 0 : (options.modelLagWallMs ?? MODEL_LAG_WALL_MS));
  post({ kind: 'listening', url, audience, clientId, clientSecret, profile, timeScale });
} catch (error) {
  const e = error as { code?: unknown; message?: string; hint?: string };
  post({
    kind: 'failed',
    usage: e.code === 'USAGE',
    message: e.message ?? String(error),
    ...(e.hint === undefined ? {} : { hint: e.hint }),
  });
}
port.on('message', (message: ToWorker) => {
  if (message.kind === 'lag' && loopLag !== undefined) post({ kind: 'lag', lag: loopLag.read() });
  if (message.kind !== 'close') return;
  loopLag?.stop();
  stalls.stop();
  void (server?.close() ?? Promise.resolve()).then(() => {
    post({ kind: 'closed' });
    // Nothing else is pending: the thread ends once the port no longer holds it.
    port.close();
  });
});
