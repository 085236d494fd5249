/**
 * `loadproof check --against-mock`: a sandbox scenario's preflight against the embedded mock, the same calls and
 * checks, and not one connection to the scenario's own target (a loopback listener that counts every connection).
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { runMain, scenarioWorkspace } from '../helpers/cli.js';

let listener: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise((r) => (listener === undefined ? r(undefined) : listener.close(r)));
  listener = undefined;
});

/** A loopback listener standing for the real target: it counts connections and answers none. */
async function countingListener(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  listener = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.destroy();
  });
  await new Promise<void>((r) => listener!.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    connections: () => connections,
  };
}

const DAY_MS = 86_400_000;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** A sandbox scenario announced 20 days ago for a window around now: the guard allows it to start now. */
const sandboxAt = (url: string): string => {
  const now = Date.now();
  const window = `{ start: '${new Date(now - 3_600_000).toISOString()}', end: '${new Date(now + 3_600_000).toISOString()}' }`;
  return `name: real\ndescription: a sandbox test\ntarget: { environment: sandbox, baseUrl: '${url}', tunnel: true }\nnotice: { announcedOn: '${isoDay(now - 20 * DAY_MS)}', reference: SUP-1, window: ${window} }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n`;
};
/** The same sandbox scenario with no advance notice: the guard refuses its load test. */
const unannouncedSandboxAt = (url: string): string =>
  `name: real\ndescription: a sandbox test\ntarget: { environment: sandbox, baseUrl: '${url}', tunnel: true }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n`;
const CREDS = { LOADPROOF_CLIENT_ID: 'sandbox-client', LOADPROOF_CLIENT_SECRET: 'sandbox-secret-0123456789' };

describe('loadproof check --against-mock', () => {
  it('the listener counts a connection: a check of a mock at its address reaches it', async () => {
    const target = await countingListener();
    const { file } = scenarioWorkspace(
      `name: m\ndescription: d\ntarget: { environment: mock, baseUrl: '${target.url}' }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n`,
    );
    const { code } = await runMain(['check', file]);
    expect(code).not.toBe(0);
    expect(target.connections()).toBeGreaterThan(0);
  });

  it('checks a sandbox scenario against the embedded mock: every call as the spec says, nothing sent to its target', async () => {
    const target = await countingListener();
    const { file } = scenarioWorkspace(sandboxAt(target.url));
    const { code, stdout, stderr } = await runMain(['check', file, '--against-mock', '--time-scale', '20'], CREDS);
    expect(stderr).toMatch(/check: 4 calls to the embedded mock at http:\/\/127\.0\.0\.1:\d+/);
    expect(stderr).toContain(`--against-mock: the scenario's target (sandbox at ${target.url}) is not contacted`);
    for (const call of ['token', 'session', 'identification', 'obfuscation'])
      expect(stdout).toMatch(new RegExp(`✔ +${call} +200`));
    expect(code).toBe(0);
    expect(target.connections()).toBe(0);
    // The secret the scenario's credentials name reached only the mock, and no output.
    expect(stdout + stderr).not.toContain(CREDS.LOADPROOF_CLIENT_SECRET);
  });

  it('the guard judges the scenario as written: a sandbox load test without notice is refused (exit 3), no call made', async () => {
    const target = await countingListener();
    const { file } = scenarioWorkspace(unannouncedSandboxAt(target.url));
    const { code, stdout, stderr } = await runMain(['check', file, '--against-mock', '--time-scale', '20'], CREDS);
    expect(code).toBe(3);
    expect(stdout + stderr).toMatch(/notice/);
    expect(stdout + stderr).not.toContain('not-applicable');
    expect(stdout + stderr).not.toContain('this is a mock');
    expect(stdout).not.toContain('the guard would allow the load test');
    expect(target.connections()).toBe(0);
  });

  it("the decision printed is the written scenario's: its notice rules checked, not waved through as a mock", async () => {
    const target = await countingListener();
    const { file } = scenarioWorkspace(sandboxAt(target.url));
    const { code, stdout } = await runMain(['check', file, '--against-mock', '--json'], CREDS);
    expect(code).toBe(0);
    const guard = (JSON.parse(stdout) as { guard: { environment: string; checks: { rule: string; status: string }[] } })
      .guard;
    expect(guard.environment).toBe('sandbox');
    expect(guard.checks.filter((c) => c.status === 'not-applicable')).toEqual([]);
    expect(target.connections()).toBe(0);
  });

  it('the flag is for a scenario with a target of its own: on the embedded mock already, it says so (exit 2)', async () => {
    const { file } = scenarioWorkspace(
      'name: m\ndescription: d\ntarget: { environment: mock }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n',
    );
    const { code, stderr } = await runMain(['check', file, '--against-mock']);
    expect(code).toBe(2);
    expect(stderr).toContain('--against-mock: the scenario already targets the embedded mock');
  });
});
