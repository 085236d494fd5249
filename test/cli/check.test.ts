/**
 * `loadproof check`: one call to each endpoint, judged against the spec, then the guard's decision on
 * the load test. Against the real mock, a loopback stub that answers wrongly, and nothing at all.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runMain, scenarioWorkspace } from '../helpers/cli.js';

let server: MockServer | undefined;
let stub: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await new Promise((r) => (stub === undefined ? r(undefined) : stub.close(r)));
  stub = undefined;
});

const scenario = (target: string, extra = ''): string =>
  `name: checked\ndescription: preflight\ntarget: ${target}\nphases: [{ name: one, duration: 1m, rpm: 60 }]\n${extra}`;

/** A loopback server that answers every endpoint with 200, but with `answers`' bodies. */
async function stubServer(answers: Record<string, unknown>): Promise<string> {
  stub = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = Object.keys(answers).find((k) => req.url!.includes(k));
      res
        .writeHead(key === undefined ? 404 : 200, { 'content-type': 'application/json' })
        .end(JSON.stringify(key === undefined ? {} : answers[key]));
    });
  });
  await new Promise<void>((r) => stub!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
}

describe('loadproof check', () => {
  it('calls each endpoint once against the embedded mock, finds every answer as the spec says, and shows the guard (exit 0)', async () => {
    const { file } = scenarioWorkspace(scenario('{ environment: mock }'));
    // k = 5: each call's deadline is the 16 s timeout ÷ k of wall time, 3.2 s. At k = 50 (320 ms) one stall of a
    // busy machine (two CPU hogs and other work on 2 cores) was a timeout, exit 4.
    const { code, stdout, stderr } = await runMain(['check', file, '--time-scale', '5']);
    expect(code, stdout + stderr).toBe(0);
    expect(stderr).toMatch(
      /^check: 4 calls to the embedded mock at http:\/\/127\.0\.0\.1:\d+, one to each endpoint: token, session, identification, obfuscation \(nothing else is sent; times below are wall ms, the mock running 5 times fast\)\n$/,
    );
    expect(stdout).toMatch(/✔ +token +200 +\d+ ms +access_token: a string of \d+ characters \(not shown\)/);
    expect(stdout).toMatch(/✔ +session +200 .*UUID-shaped/);
    expect(stdout).toMatch(
      /✔ +identification +200 .*\d+ entities \(.*\) in a text of \d+ characters; every entity's offsets fall inside the text and match its text/,
    );
    expect(stdout).toMatch(/✔ +obfuscation +200 .*none of the \d+ entities' texts remains in it/);
    expect(stdout).toContain('Guard: ALLOWED');
    expect(stdout).toContain(
      'check: every endpoint answered as the spec says, and the guard would allow the load test — exit 0',
    );
  });

  // `check` sends only what the guard allowed; a load test it refuses is refused before any call.
  it('sends nothing, not even the token call, when the guard would refuse the load test (exit 3)', async () => {
    server = await startMockServer({ timeScale: 1 });
    const { file } = scenarioWorkspace(scenario(`{ environment: sandbox, baseUrl: "${server.url}" }`));
    const { code, stderr } = await runMain(['check', file, '--allow-loopback-as-real'], {
      LOADPROOF_CLIENT_ID: server.clientId,
      LOADPROOF_CLIENT_SECRET: server.clientSecret,
    });
    expect(code).toBe(3);
    expect(stderr).toContain('GUARD_REFUSED');
    expect(stderr).toMatch(/✖ notice: a sandbox run needs an advance notice/);
    const seen = server.stats().requests;
    expect([
      seen.token.received,
      seen.session.received,
      seen.identification.received,
      seen.obfuscation.received,
    ]).toEqual([0, 0, 0, 0]);
  });

  it('marks each answer that is not what the spec says, and exits 1', async () => {
    const url = await stubServer({
      '/oauth/token': { access_token: 'stub-token-123' },
      '/session': { session_id: 'not-a-uuid' },
      identification: { entities: [{ type: 'NAME', start: 5, end: 99_999 }] },
      obfuscation: { text: 'unchanged' },
    });
    const { file } = scenarioWorkspace(scenario(`{ environment: mock, baseUrl: "${url}" }`));
    const { code, stdout } = await runMain(['check', file]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/✔ +token/);
    expect(stdout).toMatch(/✖ +session +200 .*NOT AS THE SPEC SAYS: session_id "not-a-uuid" is not UUID-shaped/);
    expect(stdout).toMatch(
      /✖ +identification +200 .*NOT AS THE SPEC SAYS: entities\[0\] is at \[5, 99999\), outside a text of \d+ characters/,
    );
    expect(stdout).toMatch(/✖ +obfuscation +— +— +not sent: identification gave no entities to obfuscate/);
    expect(stdout).not.toContain('stub-token-123');
  });

  it('exits 4 when the target does not answer', async () => {
    const url = await stubServer({});
    await new Promise((r) => stub!.close(r));
    stub = undefined;
    const { file } = scenarioWorkspace(scenario(`{ environment: mock, baseUrl: "${url}" }`));
    const { code, stderr } = await runMain(['check', file]);
    expect(code).toBe(4);
    expect(stderr).toContain('TARGET_UNREACHABLE');
  });
});
