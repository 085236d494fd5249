/**
 * A real environment reached at a loopback address (an SSH tunnel, a port-forward, a sidecar): `target.tunnel: true`
 * keeps every rule of a real environment (notice, coordination, envelope, maxInFlight, real time), and the report
 * calls it that environment, reached through the tunnel. A mock run's report never calls its 429s findings against
 * the service it says nothing of.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const scenario = (target: string, phases = '[{ name: one, duration: 1m, rpm: 60 }]', extra = ''): string =>
  `name: tunnelled\ndescription: staging through a tunnel\ntarget: ${target}\nphases: ${phases}\n${extra}`;

const reportMd = (out: string): string => readFileSync(join(out, runFolders(out)[0]!, 'report.md'), 'utf8');

describe('a real environment through a loopback tunnel (target.tunnel)', () => {
  it('refuses a real environment at a loopback URL without it, and says how to declare a tunnel', async () => {
    const { file } = scenarioWorkspace(scenario('{ environment: production, baseUrl: "http://127.0.0.1:8443" }'));
    const { code, stdout } = await runMain(['plan', file]);
    expect(code).toBe(3);
    expect(stdout).toMatch(/✖ target +target\.baseUrl http:\/\/127\.0\.0\.1:8443 is loopback.*target\.tunnel: true/);
  });

  it('judges the tunnel by every rule of the environment it reaches: notice, envelope and maxInFlight', async () => {
    const { file } = scenarioWorkspace(
      scenario(
        '{ environment: sandbox, baseUrl: "http://127.0.0.1:8443", tunnel: true }',
        '[{ name: spike, duration: 6m, rpm: 300 }]',
        'maxInFlight: 200\n',
      ),
    );
    const { code, stdout } = await runMain(['plan', file, '--at', '2026-12-01T09:00:00Z']);
    expect(code, stdout).toBe(3);
    expect(stdout).toContain(
      '✔ target         sandbox at http://127.0.0.1:8443, a loopback tunnel to the real sandbox (target.tunnel): every rule of sandbox applies',
    );
    expect(stdout).toMatch(/✖ notice +a sandbox run needs an advance notice/);
    expect(stdout).toMatch(/✖ coordination /);
    expect(stdout).toMatch(/✖ envelope .*maxInFlight 200/);
  });

  it('keeps real time through a tunnel: --time-scale is refused', async () => {
    const { file } = scenarioWorkspace(
      scenario('{ environment: production, baseUrl: "http://127.0.0.1:8443", tunnel: true }'),
    );
    const { code, stdout } = await runMain(['plan', file, '--time-scale', '10']);
    expect(code).toBe(3);
    expect(stdout).toMatch(/✖ time-scale +--time-scale 10 against production/);
  });

  it('refuses a tunnel at an address that is not loopback, and a tunnel to a mock', async () => {
    const far = scenarioWorkspace(
      scenario('{ environment: production, baseUrl: "https://api.example.invalid", tunnel: true }'),
    );
    const a = await runMain(['plan', far.file]);
    expect(a.code).toBe(3);
    expect(a.stdout).toMatch(
      /✖ target +target\.tunnel is true, but target\.baseUrl https:\/\/api\.example\.invalid is not loopback/,
    );
    const mock = scenarioWorkspace(scenario('{ environment: mock, baseUrl: "http://127.0.0.1:8443", tunnel: true }'));
    const b = await runMain(['plan', mock.file]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('target.tunnel');
  });

  it(
    'runs through the tunnel and reports the environment it reached, never "a mock … says nothing of the service"',
    { timeout: 60_000 },
    async () => {
      server = await startMockServer({ timeScale: 1 });
      const { file, out } = scenarioWorkspace(
        scenario(
          `{ environment: production, baseUrl: "${server.url}", tunnel: true }`,
          '[{ name: one, duration: 5s, rpm: 60 }]',
        ),
      );
      const { code, stdout, stderr } = await runMain(['run', '--no-charts', file, '--out', out], {
        LOADPROOF_CLIENT_ID: server.clientId,
        LOADPROOF_CLIENT_SECRET: server.clientSecret,
      });
      // Five answers are too few to bound a p95 from above: inconclusive (exit 5), whatever the machine's speed.
      expect(code, stdout + stderr).toBe(5);
      const md = reportMd(out);
      expect(md).toContain(`production, reached through a loopback tunnel at ${server.url}`);
      expect(md).not.toMatch(/not the service|says nothing of the service|mock/i);
      expect(server.stats().requests.identification.received).toBeGreaterThan(0);
      // Judged again from the folder alone, the run is still the environment, reached through the tunnel.
      const again = await runMain(['report', join(out, runFolders(out)[0]!)]);
      expect(again.stdout + again.stderr).toContain(`production, reached through a loopback tunnel at ${server.url}`);
      expect(reportMd(out)).toContain(`production, reached through a loopback tunnel at ${server.url}`);
    },
  );

  it(
    "words a mock run's 429 findings as the mock's, as its header says it says nothing of the service",
    { timeout: 90_000 },
    async () => {
      // The tight mock refuses at 30 rpm what the documented envelope clearly allows at 100 rpm: findings.
      const { file, out } = scenarioWorkspace(
        scenario('{ environment: mock, profile: tight }', '[{ name: steady, duration: 4m, rpm: 100 }]'),
      );
      const { code, stdout, stderr } = await runMain(['run', '--no-charts', file, '--out', out, '--time-scale', '20']);
      expect(code, stdout + stderr).toBe(1);
      const md = reportMd(out);
      expect(md).toContain('not the service');
      expect(md).toMatch(/clearly allow.*a finding against the mock/);
      expect(md).not.toContain('against the service');
      const junit = readFileSync(join(out, runFolders(out)[0]!, 'junit.xml'), 'utf8');
      expect(junit).toContain('a finding against the mock');
      expect(junit + stdout).not.toContain('against the service');
      // summary.json says the same as the reports: its reasons, checks and notes.
      const summaryText = readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8');
      const summary = JSON.parse(summaryText);
      const envelope = summary.verdict.checks.find((c: any) => c.id === 'http_429_in_envelope');
      expect(envelope).toMatchObject({ status: 'fail', reason: expect.stringContaining('a finding against the mock') });
      expect(summary.verdict.reasons.join('\n')).toContain('a finding against the mock');
      expect(summaryText).not.toContain('against the service');
    },
  );
});
