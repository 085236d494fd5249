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

const sandboxAt = (url: string): string =>
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

  it('the flag is for a scenario with a target of its own: on the embedded mock already, it says so (exit 2)', async () => {
    const { file } = scenarioWorkspace(
      'name: m\ndescription: d\ntarget: { environment: mock }\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n',
    );
    const { code, stderr } = await runMain(['check', file, '--against-mock']);
    expect(code).toBe(2);
    expect(stderr).toContain('--against-mock: the scenario already targets the embedded mock');
  });
});
