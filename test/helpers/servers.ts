/**
 * Servers a test file starts on loopback — loadproof's mock at a time scale, or a stub — all closed
 * after each test, so no test leaves one listening.
 */
import { afterEach } from 'vitest';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { type Stub, type StubBehaviour, startStub } from './stub.js';

export function serversFor(timeScale: number): { mock(options?: MockServerOptions): Promise<MockServer>; stub(behaviour?: StubBehaviour): Promise<Stub> } {
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
