/**
 * `loadproof check`: one call to each endpoint, judged against the spec, then the guard's decision on
 * the load test. Against the real mock, a loopback stub that answers wrongly, and nothing at all.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';
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
      /^check: 4 calls to the embedded mock at http:\/\/127\.0\.0\.1:\d+, one to each endpoint: token, session, identification, obfuscation \(a 429 is waited out and sent again, up to 3 attempts in all; nothing else is sent; times below are wall ms, the mock running 5 times fast\)\n$/,
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

  it('shows ✖ for a 429 without Retry-After (the spec requires it on every 429), still retries, and exits 1', async () => {
    const { url, paths } = await recordingStub({ identification429: 1 });
    const { file } = scenarioWorkspace(scenario(`{ environment: production, baseUrl: "${url}", tunnel: true }`));
    const { code, stdout, stderr } = await runMain(['check', file], CREDS);
    expect(code, stdout + stderr).toBe(1);
    expect(stdout).toMatch(
      /✖ +identification +200 .*NOT AS THE SPEC SAYS: 1 answer was 429 without a Retry-After of whole seconds, which the spec requires on every 429 \(loadproof backs off on its own and sends again, while attempts remain\)/,
    );
    expect(stdout).toMatch(/✔ +obfuscation +200/);
    expect(stdout).toContain('check: an answer was not what the spec says (✖ above) — exit 1');
    expect(paths.filter((p) => p === API_PATHS.identification)).toHaveLength(2);
  });

  it('sends nothing but the four calls to a real environment (through a tunnel): no /__mock/stats', async () => {
    const { url, paths } = await recordingStub();
    const { file } = scenarioWorkspace(scenario(`{ environment: production, baseUrl: "${url}", tunnel: true }`));
    const { code, stdout, stderr } = await runMain(['check', file], CREDS);
    expect(code, stdout + stderr).toBe(0);
    expect(paths).toEqual(Object.values(API_PATHS));
    expect(stderr).toBe(
      `check: 4 calls to production, reached through a loopback tunnel at ${url}, one to each endpoint: token, session, identification, obfuscation (a 429 is waited out and sent again, up to 3 attempts in all; nothing else is sent)\n`,
    );
  });

  it('says so when it asked a mock at a loopback URL for its stats before the calls', async () => {
    const { url, paths } = await recordingStub();
    const { file } = scenarioWorkspace(scenario(`{ environment: mock, baseUrl: "${url}" }`));
    const { code, stdout, stderr } = await runMain(['check', file], CREDS);
    expect(code, stdout + stderr).toBe(0);
    expect(paths).toEqual(['/__mock/stats', ...Object.values(API_PATHS)]);
    expect(stderr).toContain(
      `(before them, one GET /__mock/stats asked the server at ${url} whether it is loadproof's mock and at which time scale it runs; a 429 is waited out and sent again, up to 3 attempts in all; nothing else is sent)`,
    );
  });
});

const CREDS = { LOADPROOF_CLIENT_ID: 'check-client', LOADPROOF_CLIENT_SECRET: 'check-secret-0123456789' };

/**
 * A loopback stand-in for a gateway in front of the service, recording every request's path: it answers each
 * endpoint as the spec says, except the first `identification429` identification requests, answered 429 without a
 * Retry-After (as nginx's limit_req does).
 */
async function recordingStub(options: { identification429?: number } = {}): Promise<{ url: string; paths: string[] }> {
  const paths: string[] = [];
  let refused = 0;
  stub = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const path = req.url!;
      paths.push(path);
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (path === API_PATHS.token) return json(200, { access_token: 'stub-token-123', expires_in: 3600 });
      if (path === API_PATHS.session) return json(200, { session_id: '123e4567-e89b-42d3-a456-426614174000' });
      if (path === API_PATHS.identification) {
        if (refused < (options.identification429 ?? 0)) {
          refused++;
          return json(429, { error: 'rate_limited' });
        }
        const text = (JSON.parse(body) as { text: string }).text;
        return json(200, { entities: [{ type: 'NAME', start: 0, end: Math.min(4, text.length) }] });
      }
      if (path === API_PATHS.obfuscation) return json(200, { text: '[NAME]' });
      return json(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => stub!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`, paths };
}
