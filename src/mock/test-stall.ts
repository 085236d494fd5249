/**
 * A stall of the mock's own thread made on purpose, for loadproof's own tests only: the thread busy-loops once, as a
 * starved thread on a busy machine stands still, but at a chosen request, so that a test of how the verdict treats
 * the tool's stalls does not depend on how busy the machine is. The embedded mock's worker takes it from the
 * environment (TEST_STALL_ENV) and refuses it outside a test run.
 */
import type { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';

import { UsageError } from '../core/index.js';
import { API_PATHS } from '../spec/index.js';

/** The thread stands still `wallMs` once, as its `atRequest`-th identification request arrives. */
interface OneStall {
  readonly atRequest: number;
  readonly wallMs: number;
}

/** Stalls at chosen requests, in any order. */
export type TestStall = readonly OneStall[];

/** Most stalls one run may ask for. */
const MAX_STALLS = 1000;

/**
 * `<atRequest>:<wallMs>` stalls, comma-separated, e.g. `40:650` or `5:30,10:30,40:650`; read only under vitest (which
 * sets VITEST).
 */
const TEST_STALL_ENV = 'LOADPROOF_TEST_MOCK_STALL';

/** The stall the environment asks for, or undefined; throws a UsageError when it is malformed or not in a test. */
export function testStallFromEnv(env: NodeJS.ProcessEnv): TestStall | undefined {
  const value = env[TEST_STALL_ENV];
  if (value === undefined || value === '') return undefined;
  if (!env.VITEST)
    throw new UsageError(`${TEST_STALL_ENV} is for loadproof's own tests only (set under vitest); unset it`);
  const parts = value.split(',');
  const stalls = parts.map((part) => /^(\d{1,6}):(\d{1,5})$/.exec(part));
  if (parts.length > MAX_STALLS || stalls.some((m) => m === null))
    throw new UsageError(
      `${TEST_STALL_ENV}: ${JSON.stringify(value.slice(0, 80))}, expected up to ${MAX_STALLS} <atRequest>:<wallMs>, comma-separated, e.g. 40:650`,
    );
  return stalls.map((m) => ({ atRequest: Number(m![1]), wallMs: Number(m![2]) }));
}

/** Makes `server`'s thread stand still as `stalls` say. */
export function stallAt(server: EventEmitter, stalls: TestStall): void {
  const wallMsAt = new Map<number, number>();
  for (const s of stalls) wallMsAt.set(s.atRequest, (wallMsAt.get(s.atRequest) ?? 0) + s.wallMs);
  let seen = 0;
  server.on('request', (req: IncomingMessage) => {
    if (req.url !== API_PATHS.identification) return;
    const wallMs = wallMsAt.get(++seen);
    if (wallMs === undefined) return;
    const until = performance.now() + wallMs;
    while (performance.now() < until) {
      // Busy on purpose: the thread's event loop stands still.
    }
  });
}
