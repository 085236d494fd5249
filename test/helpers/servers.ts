/**
 * Servers a test file starts on loopback — loadproof's mock at a time scale, or a stub — all closed
 * after each test, so no test leaves one listening.
 */
import type { Worker } from 'node:worker_threads';

import { afterEach } from 'vitest';

import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { startStub, type Stub, type StubBehaviour } from './stub.js';

export function serversFor(timeScale: number): {
  mock(options?: MockServerOptions): Promise<MockServer>;
  stub(behaviour?: StubBehaviour): Promise<Stub>;
} {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const keep = <T extends { close(): Promise<void> }>(server: T): T => {
    open.push(server);
    return server;
  };
  return {
    mock: async (options = {}) => keep(await startMockServer({ timeScale, ...options })),
    stub: async (behaviour = {}) => keep(await startStub(behaviour)),
  };
}

/**
 * Stops a server running in a worker thread (tests whose server must answer while the test's own thread
 * is blocked): the thread's code closes its server and exits when it receives any message.
 */
export function stopServerThread(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    worker.once('exit', () => resolve());
    worker.postMessage('close');
  });
}
