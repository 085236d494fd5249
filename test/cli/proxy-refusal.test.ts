/**
 * A proxy that stops letting us through mid-run. Its own refusal of a tunnel (407 here) is the route's fault, never
 * the service's: the run ends as TARGET_UNREACHABLE naming the proxy (exit 4), and the request it refused is unsent,
 * not an error charged to the service. A 502 to CONNECT says the proxy could not reach the target: counted as the
 * target's `refused`, as a direct connection would be, with the proxy named. A scripted proxy on loopback tunnels to
 * the mock until the mock has answered one identification request, then answers every CONNECT with its script; the
 * scenario's idle lifetime of 1 ms makes every request ask for a connection of its own.
 */
import { readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { startMockServer } from '../../src/mock/index.js';
import { runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';

const K = 10;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A proxy that tunnels while `through()` holds, then answers CONNECT with `answer`; `refused` counts those. */
async function scriptedProxy(through: () => boolean, answer: string): Promise<{ port: number; refused: () => number }> {
  const sockets = new Set<Socket>();
  let refused = 0;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    let head = '';
    const onData = (chunk: Buffer): void => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      client.off('data', onData);
      if (!through()) {
        refused++;
        client.end(answer);
        return;
      }
      const [host, port] = /^CONNECT (\S+):(\d+) /.exec(head)!.slice(1);
      const upstream = connect({ host: host!, port: Number(port) }, () => {
        client.write('HTTP/1.1 200 Connection established\r\n\r\n');
        client.pipe(upstream).pipe(client);
      });
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
  return { port: (server.address() as AddressInfo).port, refused: () => refused };
}

async function proxiedRun(answer: string) {
  const mock = await startMockServer({ timeScale: K });
  open.push(mock);
  const served = (): number => mock.stats().requests.identification.received;
  const proxy = await scriptedProxy(() => served() < 1, answer);
  const baseUrl = `http://localhost:${new URL(mock.url).port}`;
  const { file, out } = scenarioWorkspace(
    `name: proxied\ndescription: through a proxy that stops\ntarget:\n  environment: mock\n  baseUrl: ${baseUrl}\n  audience: ${mock.url}\n  idleConnection: 1ms\nphases:\n  - { name: steady, duration: 12s, rpm: 100 }\n`,
  );
  const env = { http_proxy: `http://127.0.0.1:${proxy.port}`, HTTP_PROXY: '', https_proxy: '', HTTPS_PROXY: '' };
  const run = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], {
    ...env,
    no_proxy: '',
    NO_PROXY: '',
    LOADPROOF_CLIENT_ID: mock.clientId,
    LOADPROOF_CLIENT_SECRET: mock.clientSecret,
  });
  const folder = join(out, runFolders(out)[0]!);
  const summary = JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'));
  const reportMd = readFileSync(join(folder, 'report.md'), 'utf8');
  return { ...run, summary, reportMd, proxy, served, port: new URL(mock.url).port };
}

describe('a proxy that refuses the tunnel mid-run', () => {
  it('407: the run ends as TARGET_UNREACHABLE naming the proxy (exit 4); nothing is charged to the service', async () => {
    const r = await proxiedRun('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
    expect(r.code, r.stderr).toBe(4);
    expect(r.proxy.refused()).toBeGreaterThan(0);
    expect(r.stderr).toContain(
      `TARGET_UNREACHABLE: the route through the proxy failed mid-run: through the proxy 127.0.0.1:${r.proxy.port} (http_proxy): it answered CONNECT localhost:${r.port} with "HTTP/1.1 407 Proxy Authentication Required"`,
    );
    const outcomes = r.summary.phases[0].outcomes;
    expect(outcomes.error ?? 0).toBe(0);
    // Every request sent reached the service and got its answer; the one the proxy refused never left.
    expect(r.summary.counts.sent).toBe(r.served());
    expect(r.summary.counts.unsent).toBeGreaterThan(0);
  });

  it('502: the proxy could not reach the target, counted as `refused` as a direct connection would be, the proxy named', async () => {
    const r = await proxiedRun('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    expect(r.stderr).toContain(
      `loadproof: warning: through the proxy 127.0.0.1:${r.proxy.port} (http_proxy): it answered CONNECT localhost:${r.port} with "HTTP/1.1 502 Bad Gateway"`,
    );
    const outcomes = r.summary.phases[0].outcomes;
    // Each 502 is one request's connection (a connection made for a request that another one then took, fails none).
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.refused).toBeLessThanOrEqual(r.proxy.refused());
    expect(outcomes.error ?? 0).toBe(0);
    // The report's target line names the proxy, as the run's header did.
    expect(r.reportMd).toMatch(
      new RegExp(
        `\\| Environment +\\| mock http://localhost:${r.port} \\(loadproof mock[^)]*\\) through proxy 127\\.0\\.0\\.1:${r.proxy.port} +\\|`,
      ),
    );
  });
});
