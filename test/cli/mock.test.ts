/** `loadproof mock` as a child process: the JSON line, real calls, clean shutdown, bad input. */
import { createServer } from 'node:net';

import { describe, expect, it } from 'vitest';

import { API_PATHS } from '../../src/spec/index.js';
import { runCli, runMain, startCli } from '../helpers/cli.js';
import { bearer, call, postJson } from '../helpers/http.js';

describe('loadproof mock', () => {
  it('prints one JSON line once listening, serves the API, and closes cleanly on SIGTERM', async () => {
    const cli = startCli([
      'mock',
      '--port',
      '0',
      '--json',
      '--profile',
      'tight',
      '--time-scale',
      '10',
      '--client-secret',
      'cli-test-secret',
    ]);
    const info = JSON.parse(await cli.firstLine);
    expect(info).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      audience: info.url,
      clientId: 'loadproof-mock-client',
      clientSecret: 'cli-test-secret',
      profile: 'tight',
      timeScale: 10,
    });
    const token = await postJson(info.url + API_PATHS.token, {
      client_id: info.clientId,
      client_secret: info.clientSecret,
      audience: info.audience,
      grant_type: 'client_credentials',
    });
    expect(token.status).toBe(200);
    const found = await postJson(
      info.url + API_PATHS.identification,
      { text: 'Seen Mary Lee on 01/02/2026.' },
      bearer(token.json.access_token),
    );
    expect(found.status).toBe(200);
    expect(found.json.entities).toHaveLength(2);
    const stats = await call(`${info.url}/__mock/stats`);
    expect(stats.json).toMatchObject({
      profile: 'tight',
      timeScale: 10,
      identification: { limits: { maxInFlight: 16 } },
    });
    cli.child.kill('SIGTERM');
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stderr).toBe('');
  });

  it('prints a human summary without --json and closes on SIGINT', async () => {
    const cli = startCli(['mock', '--port', '0']);
    expect(await cli.firstLine).toMatch(/^loadproof mock listening on http:\/\/127\.0\.0\.1:\d+$/);
    cli.child.kill('SIGINT');
    const { code, stdout, stderr } = await cli.exited;
    expect(code).toBe(0);
    expect(stdout).toContain('profile nominal, time scale 1');
    expect(stderr).toBe('loadproof mock: SIGINT, closed\n');
  });

  it('does not print a secret given with --client-secret in its human output', async () => {
    const cli = startCli(['mock', '--port', '0', '--client-secret', 'do-not-print-me']);
    await cli.firstLine;
    cli.child.kill('SIGTERM');
    const { stdout, stderr } = await cli.exited;
    expect(stdout + stderr).not.toContain('do-not-print-me');
  });

  it.each([
    { args: ['--profile', 'fast'], mention: 'Argument: profile, Given: "fast"' },
    { args: ['--bogus'], mention: 'Unknown argument: bogus' },
    { args: ['--port', '70000'], mention: 'port: expected an integer from 0 to 65535, got 70000' },
    { args: ['--time-scale', '0'], mention: '--time-scale: expected a number from 1 to 1000, got 0' },
    { args: ['--fault-500', '2'], mention: 'faults.http500Rate: expected a probability from 0 to 1, got 2' },
    { args: ['--burst-rpm', '50'], mention: 'limits.burstRpm: expected ≥ sustainedRpm (100), got 50' },
  ])('exits 2 naming the problem for $args', async ({ args, mention }) => {
    const { code, stdout, stderr } = await runMain(['mock', ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(mention);
  });

  it('exits 2 with a hint when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stderr } = await runMain(['mock', '--port', String(port)]);
      expect(code).toBe(2);
      expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
      expect(stderr).toContain('hint: choose another --port');
    } finally {
      blocker.close();
    }
  });

  it('takes the last value of a flag given twice', async () => {
    const { code, stderr } = await runMain(['mock', '--port', '0', '--port', '70000']);
    expect(code).toBe(2);
    expect(stderr).toContain('got 70000\n');
  });

  it('exits 2 when no command is given', async () => {
    const { code, stderr } = await runCli([]);
    expect(code).toBe(2);
    expect(stderr).toContain('name a command');
  });
});
