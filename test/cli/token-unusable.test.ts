/**
 * A 200 token answer whose access_token is missing or not a string once was
 * TARGET_UNREACHABLE in `run`, RUN_FAILED in `deid`, while a token a header cannot carry was AUTH_FAILED.
 * An unusable token answer is one thing in every command: an authentication failure (AUTH_FAILED, exit 4),
 * with nothing sent with it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runMain } from '../helpers/cli.js';
import { scenarioAt } from '../helpers/reconcile.js';
import { startStub, type Stub, tokenAnswer } from '../helpers/stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const BODIES: [string, unknown][] = [
  ['{}', {}],
  ['{"access_token": 5}', { access_token: 5, token_type: 'Bearer', expires_in: 3600 }],
  ['{"access_token": null}', { access_token: null, token_type: 'Bearer', expires_in: 3600 }],
  ['{"access_token": ["x"]}', { access_token: ['lpmock_at_x'] }],
  ['a JSON string, not an object', 'lpmock_at_x'],
];

async function scenario(url: string): Promise<{ dir: string; file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-token-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioAt(url, '  - { name: ten, duration: 10s, rpm: 60 }\n'));
  return { dir, file };
}

describe('a 200 token answer without a usable access_token: AUTH_FAILED, exit 4, in every command', () => {
  it.each(BODIES)('run (%s)', async (_name, body) => {
    stub = await startStub({ token: () => ({ status: 200, body }) });
    const { dir, file } = await scenario(stub.url);
    const { code, stderr } = await runMain(['run', file, '--out', join(dir, 'reports'), '--no-charts', '--quiet']);
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('AUTH_FAILED');
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
    expect(stub.counts.identification).toBe(0);
  });

  it.each(BODIES)('probe (%s)', async (_name, body) => {
    stub = await startStub({ token: () => ({ status: 200, body }) });
    const { dir, file } = await scenario(stub.url);
    const { code, stderr } = await runMain([
      'probe',
      file,
      '--out',
      join(dir, 'reports'),
      '--connections',
      '1',
      '--step',
      '2s',
      '--max-rpm',
      '60',
    ]);
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('AUTH_FAILED');
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
    expect(stub.counts.identification).toBe(0);
  });

  it.each(BODIES)('deid (%s)', async (_name, body) => {
    stub = await startStub({ token: () => ({ status: 200, body }) });
    const { file } = await scenario(stub.url);
    const { code, stderr } = await runMain(['deid', '-', '--scenario', file], {}, 'Patient John Smith.');
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('AUTH_FAILED: token:');
    expect(stderr).not.toContain('RUN_FAILED');
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
    expect(stub.counts.identification).toBe(0);
  });

  it.each(BODIES)('check (%s)', async (_name, body) => {
    stub = await startStub({ token: () => ({ status: 200, body }) });
    const { file } = await scenario(stub.url);
    const { code, stdout, stderr } = await runMain(['check', file]);
    expect(code, stderr).toBe(4);
    expect(stdout).toMatch(/✖ +token +200 .*no access_token string/);
    expect(stdout + stderr).toContain('AUTH_FAILED');
    expect(stdout + stderr).not.toContain('TARGET_UNREACHABLE');
    expect(stub.counts.identification).toBe(0);
  });

  it.each(BODIES)('run, a renewal mid-run (after a 401) answering %s', async (_name, body) => {
    stub = await startStub({
      token: (n) => (n === 1 ? tokenAnswer(1) : { status: 200, body }),
      identify: (n) =>
        n === 1 ? { status: 401, body: { error: 'invalid_token' } } : { status: 200, body: { entities: [] } },
    });
    const { dir, file } = await scenario(stub.url);
    const { code, stderr } = await runMain(['run', file, '--out', join(dir, 'reports'), '--no-charts', '--quiet']);
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('AUTH_FAILED');
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
  });
});
