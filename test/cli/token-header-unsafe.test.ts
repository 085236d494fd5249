/**
 * A token endpoint that hands out an access token holding CR/LF. `run` rightly sent
 * nothing with it, but counted each request as sent (outcome error) and blamed the target
 * (TARGET_UNREACHABLE) while the server received none. Such a token is an authentication failure
 * (AUTH_FAILED, exit 4, as `probe` says), found where the token enters (the token provider), and a
 * request that never left is unsent, never sent.
 */
import { mkdtempSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { runMain } from '../helpers/cli.js';
import { expectReconciled, onlyRun, scenarioAt } from '../helpers/reconcile.js';
import { startStub, type Stub, tokenAnswer } from '../helpers/stub.js';

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const UNSAFE = [
  'lpmock_at_x\r\nx-injected: 1',
  'lpmock_at_x\nsmuggled',
  'lpmock_at_x\rsmuggled',
  'lpmock_at x',
  'lpmock_at_\u00e9t\u00e9',
  '',
];
const unsafeToken = (value: string) => ({
  status: 200,
  body: { access_token: value, token_type: 'Bearer', expires_in: 3600 },
});

async function runAt(url: string): Promise<{ code: number; stderr: string; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'loadproof-token-'));
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, scenarioAt(url, '  - { name: ten, duration: 10s, rpm: 60 }\n'));
  const out = join(dir, 'reports');
  const { code, stderr } = await runMain(['run', file, '--out', out, '--no-charts', '--quiet']);
  return { code, stderr, out };
}

describe('an access token a header cannot carry', () => {
  it.each(UNSAFE.map((t) => [JSON.stringify(t), t]))(
    'from the first token call (%s): AUTH_FAILED, exit 4, nothing counted as sent',
    async (_name, value) => {
      stub = await startStub({ token: () => unsafeToken(value) });
      const { code, stderr, out } = await runAt(stub.url);
      expect(code, stderr).toBe(4);
      expect(stderr).toContain('AUTH_FAILED');
      expect(stderr).not.toContain('TARGET_UNREACHABLE');
      expect(stderr).not.toContain('stopped answering');
      expect(stub.counts.identification).toBe(0);
      const run = await onlyRun(out);
      expect(run.summary.counts.sent).toBe(0);
      expect(run.summary.counts.unsent).toBe(run.summary.counts.planned);
      expectReconciled(run, 0);
    },
  );

  it('from a renewal mid-run (after a 401): AUTH_FAILED, and only what left is counted as sent', async () => {
    // The first request is answered 401, so the token is renewed: the new one holds CR/LF.
    stub = await startStub({
      token: (n) => (n === 1 ? tokenAnswer(1) : unsafeToken('lpmock_at_y\r\nx-injected: 1')),
      identify: (n) =>
        n === 1 ? { status: 401, body: { error: 'invalid_token' } } : { status: 200, body: { entities: [] } },
    });
    const { code, stderr, out } = await runAt(stub.url);
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('AUTH_FAILED');
    expect(stderr).not.toContain('TARGET_UNREACHABLE');
    const run = await onlyRun(out);
    expect(run.summary.counts.sent).toBe(stub.counts.identification);
    expect(run.events.filter((e) => e.outcome === 'error')).toEqual([]);
    expectReconciled(run, stub.counts.identification);
  });

  it.each(UNSAFE.filter((t) => t !== '').map((t) => [JSON.stringify(t), t]))(
    'deid and check (%s): AUTH_FAILED or ✖ at the token, exit 4, nothing sent with it',
    async (_name, value) => {
      stub = await startStub({ token: () => unsafeToken(value) });
      const dir = mkdtempSync(join(tmpdir(), 'loadproof-token-'));
      const file = join(dir, 'scenario.yaml');
      writeFileSync(file, scenarioAt(stub.url, '  - { name: ten, duration: 10s, rpm: 60 }\n'));
      const deid = await runMain(['deid', '-', '--scenario', file], {}, 'Patient John Smith.');
      expect(deid.code, deid.stderr).toBe(4);
      expect(deid.stderr).toContain('AUTH_FAILED: token: the access_token');
      expect(deid.stderr).not.toContain('TARGET_UNREACHABLE');
      const check = await runMain(['check', file]);
      expect(check.code, check.stderr).toBe(4);
      expect(check.stdout).toMatch(/✖ +token +200 .*that a header cannot carry/);
      expect(check.stdout).toMatch(/✖ +session +— +— +not sent: no token/);
      expect(stub.counts.identification).toBe(0);
      expect(stub.counts.token).toBe(2);
    },
  );
});
