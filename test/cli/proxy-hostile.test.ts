/**
 * Proxies that misbehave, through the real CLI: one that quotes the credentials it was sent back in its answer to
 * CONNECT, one that dies in the middle of a run, one that never answers. The proxy's password must appear in no
 * output, in no form; a proxy's failure is never a finding against the service; a message says what happened.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, scenarioWorkspace, startCli } from '../helpers/cli.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const K = 10;
const USER = 'alice';
const PASSWORD = 'longer-pass-xyz';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Only this test's proxy variables, whatever the machine sets. */
const proxyEnv = (http: string): Record<string, string> => ({
  http_proxy: http,
  HTTP_PROXY: '',
  https_proxy: '',
  HTTPS_PROXY: '',
  no_proxy: '',
  NO_PROXY: '',
});

async function mock(): Promise<MockServer> {
  const started = await startMockServer({ timeScale: K });
  open.push(started);
  return started;
}

/**
 * A loopback proxy: `answer` gets each connection and the head of its CONNECT request. Tracks its sockets so that
 * `kill()` can drop every tunnel and refuse new connections, as a proxy process killed with SIGKILL does.
 */
async function proxy(answer: (client: Socket, head: string) => void): Promise<{ url: string; kill(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client)).on('error', () => {});
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.off('data', onData);
      answer(client, head);
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kill = (): void => {
    server.close();
    for (const s of sockets) s.destroy();
  };
  open.push({ close: async () => kill() });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, kill };
}

/** A forwarding proxy: CONNECT host:port, 200, then bytes both ways; counts the tunnels it opened. */
function forward(tunnels: { count: number }) {
  return (client: Socket, head: string): void => {
    const authority = head.split(' ')[1]!;
    const colon = authority.lastIndexOf(':');
    const upstream = connect(Number(authority.slice(colon + 1)), authority.slice(0, colon), () => {
      tunnels.count++;
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  };
}

const scenario = (url: string, phases: string): string =>
  `name: hostile-proxy\ndescription: through a proxy that misbehaves\ntarget: { environment: mock, baseUrl: "${url}" }\nphases:\n${phases}thresholds: { documentedTargets: false }\n`;

describe('a proxy that quotes the credentials back in its answer to CONNECT', () => {
  for (const [name, statusLine] of [
    ['decoded', (auth: string) => Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8')],
    ['as base64', (auth: string) => auth],
  ] as const)
    it(`check against a loopback mock: the password (${name}) appears in no output`, async () => {
      const target = await mock();
      const echoing = await proxy((client, head) => {
        const auth = /^Proxy-Authorization: (.*)$/im.exec(head)?.[1]?.trim() ?? '';
        client.end(`HTTP/1.1 407 ${statusLine(auth)}\r\nContent-Length: 0\r\n\r\n`);
      });
      const { file } = scenarioWorkspace(scenario(target.url, '  - { name: p, duration: 10s, rpm: 60 }\n'));
      const withCredentials = echoing.url.replace('http://', `http://${USER}:${PASSWORD}@`);
      const { code, stdout, stderr } = await runCli(
        ['check', file, '--time-scale', String(K)],
        proxyEnv(withCredentials),
      );
      expect(code, stderr).toBe(4);
      expect(stderr).toMatch(/\b407\b/);
      for (const secret of [PASSWORD, BASIC, `${USER}:${PASSWORD}`]) expect(stdout + stderr).not.toContain(secret);
    });
});

describe('a proxy that dies in the middle of a run', () => {
  it('its refusals are not charged to the service: no failed check, the verdict is not FAIL', async () => {
    const target = await mock();
    const tunnels = { count: 0 };
    const dying = await proxy(forward(tunnels));
    // 200 s of model time at 120 rpm: 20 s of wall time at K = 10, 400 requests; the proxy dies a few seconds in.
    const { file, out } = scenarioWorkspace(scenario(target.url, '  - { name: p, duration: 200s, rpm: 120 }\n'));
    const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], proxyEnv(dying.url));
    let printed = '';
    cli.child.stderr.on('data', (chunk: string) => (printed += chunk));
    // Killed once the load is under way (its header line is printed), a few seconds into 20: bounded polling.
    for (let i = 0; i < 1200 && !printed.includes('requests over'); i++) await sleep(50);
    await sleep(3000);
    dying.kill();
    const { stderr } = await cli.exited;
    const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
    expect(tunnels.count, stderr).toBeGreaterThan(0);
    expect(summary.verdict.status, stderr).not.toBe('fail');
    expect(summary.verdict.checks.filter((c: { status: string }) => c.status === 'fail')).toEqual([]);
  });
});

describe('a proxy that starts refusing tunnels (502 to CONNECT) in the middle of a run', () => {
  // A proxy's 502 to CONNECT says it could not reach the target: what a direct connection would have met as a refusal.
  // So each is the target's `refused`, said once, and the run ends as a target that stopped answering would (exit 4);
  // a FAIL here is the one a direct refusal earns, not a charge for the proxy's own fault (that is the case above).
  it("the requests it refused count as the target's refusals, said as the proxy's words; never an `error`", async () => {
    const target = await mock();
    const tunnels = { count: 0 };
    let refusing = false;
    const carried: Socket[] = [];
    const passing = forward(tunnels);
    const gateway = await proxy((client, head) => {
      if (refusing) return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      carried.push(client);
      passing(client, head);
    });
    const { file, out } = scenarioWorkspace(scenario(target.url, '  - { name: p, duration: 200s, rpm: 120 }\n'));
    const cli = startCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], proxyEnv(gateway.url));
    let printed = '';
    cli.child.stderr.on('data', (chunk: string) => (printed += chunk));
    for (let i = 0; i < 1200 && !printed.includes('requests over'); i++) await sleep(50);
    await sleep(3000);
    // The proxy restarts: its tunnels drop, and it answers every new CONNECT with 502.
    refusing = true;
    for (const s of carried) s.destroy();
    const { code, stderr } = await cli.exited;
    const summary = JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));
    expect(tunnels.count, stderr).toBeGreaterThan(0);
    expect(code, stderr).toBe(4);
    expect(stderr).toContain('with "HTTP/1.1 502 Bad Gateway": the proxy could not reach the target');
    expect(stderr).toContain('TARGET_UNREACHABLE');
    const outcomes = summary.phases[0].outcomes;
    expect(outcomes.refused, stderr).toBeGreaterThan(0);
    expect(outcomes.error, stderr).toBe(0);
  });
});

describe('a proxy that accepts the connection and never answers CONNECT', () => {
  it('check says the proxy did not answer, not that it closed the connection', async () => {
    const target = await mock();
    const silent = await proxy(() => {});
    const { file } = scenarioWorkspace(scenario(target.url, '  - { name: p, duration: 10s, rpm: 60 }\n'));
    const { code, stderr } = await runCli(['check', file, '--time-scale', String(K)], proxyEnv(silent.url));
    expect(code, stderr).toBe(4);
    expect(stderr).toContain(`through the proxy ${silent.url.replace('http://', '')}`);
    expect(stderr).not.toContain('the proxy closed the connection');
  });
});
