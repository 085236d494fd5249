/**
 * Redirects are never followed, and always said: an identification endpoint answering 307 is counted as errors
 * and the run and `check` say where it pointed (its userinfo and query never shown); a token endpoint answering
 * 307 or 400 is an authentication/configuration failure (AUTH_FAILED, exit 4), not an unreachable target.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { API_PATHS } from '../../src/spec/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { scenarioAt } from '../helpers/reconcile.js';

/** Where the stub redirects: userinfo and a query that must never be printed. */
const LOCATION = 'https://someone:hunter2-password@elsewhere.example/v2/identify?sig=query-secret-xyz';
const SHOWN = '307 to https://elsewhere.example/v2/identify (its userinfo and query not shown)';

type Answer = (res: ServerResponse) => void;
const redirect: Answer = (res) => res.writeHead(307, { location: LOCATION, 'content-length': '0' }).end();
const json =
  (status: number, body: unknown): Answer =>
  (res) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const token = json(200, { access_token: `lpmock_at_redirect_${'x'.repeat(24)}`, expires_in: 3600 });

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => (server === undefined ? r(undefined) : server.close(r)));
  server = undefined;
});

/** A loopback stub answering the token call and identification as told; 404 to everything else. */
async function stub(answers: { token: Answer; identify?: Answer }): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === API_PATHS.token) return answers.token(res);
      if (req.url === API_PATHS.identification && answers.identify !== undefined) return answers.identify(res);
      if (req.url === API_PATHS.session) return json(200, { session_id: '3f1c2a9e-8d4b-4c6e-9a7f-1b2c3d4e5f60' })(res);
      json(404, { error: 'not_found' })(res);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const noSecret = (text: string): void => {
  expect(text).not.toContain('hunter2');
  expect(text).not.toContain('query-secret');
};

describe('an identification endpoint that redirects', () => {
  it('run: counted as errors, and the run says where it pointed', async () => {
    const url = await stub({ token, identify: redirect });
    const { file, out } = scenarioWorkspace(scenarioAt(url, '  - { name: two, duration: 2s, rpm: 120 }\n'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(stderr).toContain(`loadproof: warning: the service answered ${SHOWN}; loadproof does not follow redirects`);
    expect(stderr.match(/does not follow redirects/g)).toHaveLength(1);
    expect(code).toBe(1);
    noSecret(stderr);
  });

  it('report.md names the first redirect where it describes the errors, and `loadproof report` rebuilds the same words', async () => {
    const url = await stub({ token, identify: redirect });
    const { file, out } = scenarioWorkspace(scenarioAt(url, '  - { name: two, duration: 2s, rpm: 120 }\n'));
    await runMain(['run', '--no-charts', file, '--out', out]);
    const folder = join(out, runFolders(out)[0]!);
    const said = `The first redirect was ${SHOWN}: loadproof does not follow redirects, so each counts among these errors (other statuses), and where it pointed is not measured.`;
    const written = readFileSync(join(folder, 'report.md'), 'utf8');
    expect(written).toContain(said);
    noSecret(written);
    expect(JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8')).firstRedirect).toBe(SHOWN);
    rmSync(join(folder, 'report.md'));
    const again = await runMain(['report', folder, '--no-charts']);
    expect(again.code, again.stderr).toBe(1);
    expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain(said);
  });

  it('check: the step names the status and the Location', async () => {
    const url = await stub({ token, identify: redirect });
    const { file } = scenarioWorkspace(scenarioAt(url, '  - { name: one, duration: 1m, rpm: 60 }\n'));
    const { code, stdout, stderr } = await runMain(['check', file]);
    expect(stdout).toContain(`identification: ${url}${API_PATHS.identification} answered ${SHOWN}; not followed`);
    expect(code).toBe(1);
    noSecret(stdout + stderr);
  });
});

describe('a token endpoint that does not give a token: AUTH_FAILED (exit 4), never TARGET_UNREACHABLE', () => {
  it('run: 307, with where it pointed', async () => {
    const url = await stub({ token: redirect });
    const { file, out } = scenarioWorkspace(scenarioAt(url, '  - { name: one, duration: 1s, rpm: 60 }\n'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(4);
    expect(stderr).toContain(
      `AUTH_FAILED: cannot authenticate: the token endpoint ${url}${API_PATHS.token} answered ${SHOWN}`,
    );
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
    noSecret(stderr);
  });

  it('run: 400', async () => {
    const url = await stub({ token: json(400, { error: 'invalid_request' }) });
    const { file, out } = scenarioWorkspace(scenarioAt(url, '  - { name: one, duration: 1s, rpm: 60 }\n'));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--out', out]);
    expect(code).toBe(4);
    expect(stderr).toContain(
      'AUTH_FAILED: cannot authenticate: the token request was malformed (400 Bad Request). The server said: invalid_request.',
    );
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
  });

  it('deid and check: 307 is AUTH_FAILED too', async () => {
    const url = await stub({ token: redirect });
    const { file } = scenarioWorkspace(scenarioAt(url, '  - { name: one, duration: 1m, rpm: 60 }\n'));
    const deid = await runMain(['deid', '-', '--scenario', file], {}, 'Patient John Smith, seen 2024-01-02.');
    expect(deid.code).toBe(4);
    expect(deid.stderr).toContain(`AUTH_FAILED: token: ${url}${API_PATHS.token} answered ${SHOWN}; not followed`);
    const check = await runMain(['check', file]);
    expect(check.code).toBe(4);
    expect(check.stdout).toContain('(AUTH_FAILED)');
    noSecret(deid.stderr + check.stdout + check.stderr);
  });
});
