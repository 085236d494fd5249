/**
 * A hostile value in a proxy variable or in --ca, through the real CLI: the message that names it is bounded, and
 * a line break inside the value cannot start a line of its own on the terminal (a forged `loadproof:` line).
 */
import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, scenarioWorkspace } from '../helpers/cli.js';

const K = 10;
/** Far above any message loadproof means to print about one value. */
const BOUND = 4096;

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const proxyEnv = (http: string): Record<string, string> => ({
  http_proxy: http,
  HTTP_PROXY: '',
  https_proxy: '',
  HTTPS_PROXY: '',
  no_proxy: '',
  NO_PROXY: '',
});

async function workspace(): Promise<string> {
  mock = await startMockServer({ timeScale: K });
  return scenarioWorkspace(
    `name: values\ndescription: hostile values\ntarget: { environment: mock, baseUrl: "${mock.url}" }\nphases:\n  - { name: p, duration: 10s, rpm: 60 }\nthresholds: { documentedTargets: false }\n`,
  ).file;
}

describe('hostile values in a proxy variable and --ca', () => {
  it('a CR LF inside HTTP_PROXY does not start a line of its own', async () => {
    const file = await workspace();
    const { code, stderr } = await runCli(
      ['check', file, '--time-scale', String(K)],
      proxyEnv('http://127.0.0.1:1\r\nloadproof: forged line'),
    );
    expect(code, stderr).toBe(2);
    expect(stderr).not.toMatch(/\nloadproof: forged line/);
  });

  it('a proxy host of 100 000 characters: the warning naming it is bounded', async () => {
    const file = await workspace();
    const { stderr } = await runCli(
      ['check', file, '--time-scale', String(K)],
      proxyEnv(`http://${'a'.repeat(100_000)}:1`),
    );
    expect(stderr).toContain('http_proxy names the proxy');
    expect(stderr.length).toBeLessThan(BOUND);
  });

  it('a --ca path of 100 000 characters: exit 2, the message naming it is bounded', async () => {
    const file = await workspace();
    const { code, stderr } = await runCli(['check', file, '--time-scale', String(K), '--ca', 'a'.repeat(100_000)]);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('--ca');
    expect(stderr.length).toBeLessThan(BOUND);
  });
});
