/**
 * Runs through a real HTTP proxy (Debian's tinyproxy on loopback) to an https target that only it is used to reach:
 * an https front (a self-signed certificate for localhost, trusted through NODE_EXTRA_CA_CERTS) before loadproof's
 * mock. The proxy's log shows the CONNECTs, the front counts its TLS connections and requests; NO_PROXY bypasses the
 * proxy; the proxy's credentials travel in the URL and appear in no output; probe refuses a proxied target.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { runCli, runFolders, runMain, scenarioWorkspace } from '../helpers/cli.js';
import { HAVE_TINYPROXY, startTinyproxy, type Tinyproxy } from '../helpers/tinyproxy.js';

const K = 10;
const CERT = fileURLToPath(new URL('../fixtures/tls/localhost.crt', import.meta.url));
const KEY = fileURLToPath(new URL('../fixtures/tls/localhost.key', import.meta.url));
const PASSWORD = 'pr0xy-S3cret-Pass';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

interface Front {
  readonly url: string;
  readonly port: number;
  /** TLS connections accepted, and the requests they carried ("METHOD /path"). */
  readonly tlsConnections: () => number;
  readonly requests: string[];
}

/** An https server for localhost that hands every request to `mock`: the target, as a user's gateway would be. */
async function httpsFront(mock: MockServer): Promise<Front> {
  const requests: string[] = [];
  let tlsConnections = 0;
  const upstream = new URL(mock.url);
  const server: Server = createHttpsServer({ cert: readFileSync(CERT), key: readFileSync(KEY) }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const up = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  server.on('secureConnection', () => tlsConnections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  const { port } = server.address() as AddressInfo;
  return { url: `https://localhost:${port}`, port, tlsConnections: () => tlsConnections, requests };
}

async function target(): Promise<{ mock: MockServer; front: Front }> {
  const mock = await startMockServer({ timeScale: K });
  open.push(mock);
  return { mock, front: await httpsFront(mock) };
}

async function proxy(connectPort: number, basicAuth?: { user: string; password: string }): Promise<Tinyproxy> {
  const started = await startTinyproxy({ connectPort, ...(basicAuth === undefined ? {} : { basicAuth }) });
  open.push(started);
  return started;
}

/** The front's URL as the base, the mock's as the audience (the mock knows itself by its own URL). */
const scenario = ({ mock, front }: { mock: MockServer; front: Front }): string =>
  `name: proxied\ndescription: through a proxy\ntarget:\n  environment: mock\n  baseUrl: ${front.url}\n  audience: ${mock.url}\nphases:\n  - { name: steady, duration: 12s, rpm: 100 }\n`;

/** The environment: only these proxy variables, whatever the machine running the tests sets. */
const proxyEnv = (vars: { https?: string; noProxy?: string }): Record<string, string> => ({
  NODE_EXTRA_CA_CERTS: CERT,
  https_proxy: vars.https ?? '',
  HTTPS_PROXY: '',
  http_proxy: '',
  HTTP_PROXY: '',
  no_proxy: vars.noProxy ?? '',
  NO_PROXY: '',
});

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [readFileSync(path, 'latin1')];
  });
}

const run = (file: string, out: string, env: Record<string, string>) =>
  runCli(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], env);

const summaryOf = (out: string): any =>
  JSON.parse(readFileSync(join(out, runFolders(out)[0]!, 'summary.json'), 'utf8'));

const WHICH = HAVE_TINYPROXY ? 'tinyproxy' : 'skipped: /usr/bin/tinyproxy is not installed (apt-get install tinyproxy)';
describe.skipIf(!HAVE_TINYPROXY)(`through a real proxy (${WHICH})`, () => {
  it('a run through HTTPS_PROXY reaches the https target only through the proxy, and its header names it', async () => {
    const both = await target();
    const { mock, front } = both;
    const tiny = await proxy(front.port);
    const { file, out } = scenarioWorkspace(scenario(both));
    const { code, stderr } = await run(file, out, proxyEnv({ https: `http://127.0.0.1:${tiny.port}` }));
    expect([0, 5], stderr).toContain(code);
    expect(stderr).toContain(`against ${front.url} through proxy 127.0.0.1:${tiny.port}`);
    const summary = summaryOf(out);
    expect(summary.target.proxy).toBe(`127.0.0.1:${tiny.port}`);
    expect(summary.counts.sent).toBe(20);
    // The target saw every request, each on a connection the proxy tunnelled: as many CONNECTs as TLS connections.
    expect(mock.stats().requests.identification.received).toBe(20);
    expect(front.requests.filter((r) => r.startsWith('POST /entityextraction'))).toHaveLength(20);
    expect(front.tlsConnections()).toBeGreaterThan(0);
    expect(tiny.connects()).toEqual(Array(front.tlsConnections()).fill(`localhost:${front.port}`));
  });

  it('check and deid go through the proxy too: every call on a tunnel, the proxy named', async () => {
    const both = await target();
    const { mock, front } = both;
    const tiny = await proxy(front.port);
    const { dir, file } = scenarioWorkspace(scenario(both));
    const env = proxyEnv({ https: `http://127.0.0.1:${tiny.port}` });
    const check = await runCli(['check', file, '--time-scale', String(K)], env);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toContain(
      `calls to the mock at ${front.url} through proxy 127.0.0.1:${tiny.port}, one to each`,
    );
    const note = join(dir, 'note.txt');
    writeFileSync(note, 'Patient John Smith, MRN 12345678, seen on 2024-03-01.\n');
    const deid = await runCli(['deid', note, '--scenario', file, '--time-scale', String(K)], env);
    expect(deid.code, deid.stderr).toBe(0);
    expect(deid.stderr).toContain(`to ${front.url} through proxy 127.0.0.1:${tiny.port}`);
    expect(mock.stats().requests.identification.received).toBeGreaterThanOrEqual(2);
    // Each of these calls has a connection of its own: one CONNECT each, and no connection around the proxy.
    expect(front.requests.length).toBeGreaterThanOrEqual(8);
    expect(tiny.connects()).toEqual(Array(front.tlsConnections()).fill(`localhost:${front.port}`));
  });

  it('with NO_PROXY matching the target host, the proxy sees nothing and the header names no proxy', async () => {
    const both = await target();
    const { mock, front } = both;
    const tiny = await proxy(front.port);
    const { file, out } = scenarioWorkspace(scenario(both));
    const env = proxyEnv({ https: `http://127.0.0.1:${tiny.port}`, noProxy: 'example.test, localhost' });
    const { code, stderr } = await run(file, out, env);
    expect([0, 5], stderr).toContain(code);
    expect(stderr).toContain(`against ${front.url}\n`);
    expect(summaryOf(out).target.proxy).toBeUndefined();
    expect(mock.stats().requests.identification.received).toBe(20);
    expect(tiny.connects()).toEqual([]);
  });

  it('with credentials in the proxy URL, CONNECT is authorised, and the password is in no output', async () => {
    const both = await target();
    const { mock, front } = both;
    const tiny = await proxy(front.port, { user: 'alice', password: PASSWORD });
    const { file, out } = scenarioWorkspace(scenario(both));
    const env = proxyEnv({ https: `http://alice:${encodeURIComponent(PASSWORD)}@127.0.0.1:${tiny.port}` });
    const { code, stdout, stderr } = await run(file, out, env);
    expect([0, 5], stderr).toContain(code);
    expect(mock.stats().requests.identification.received).toBe(20);
    expect(tiny.connects().length).toBeGreaterThan(0);
    const basic = Buffer.from(`alice:${PASSWORD}`).toString('base64');
    for (const text of [stdout, stderr, ...filesUnder(out)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(basic);
    }
  });

  it('a proxy that wants credentials and gets none: exit 4 naming the proxy and its status line, no load', async () => {
    const both = await target();
    const { mock, front } = both;
    const tiny = await proxy(front.port, { user: 'alice', password: PASSWORD });
    const { file, out } = scenarioWorkspace(scenario(both));
    const { code, stderr } = await runMain(
      ['run', '--no-charts', file, '--time-scale', String(K), '--out', out],
      proxyEnv({ https: `http://127.0.0.1:${tiny.port}` }),
    );
    expect(code).toBe(4);
    expect(stderr).toMatch(
      new RegExp(
        `TARGET_UNREACHABLE: .*through the proxy 127\\.0\\.0\\.1:${tiny.port} \\(https_proxy\\): it answered CONNECT localhost:${front.port} with "HTTP/1\\.[01] 407 [^"]*" \\(the proxy wants credentials`,
      ),
    );
    expect(front.requests).toEqual([]);
    expect(mock.stats().requests.identification.received).toBe(0);
  });

  it('probe refuses a target the environment sends through a proxy (exit 2), before anything is sent', async () => {
    const both = await target();
    const { front } = both;
    const tiny = await proxy(front.port);
    const { file, out } = scenarioWorkspace(scenario(both));
    const { code, stderr } = await runMain(
      [
        'probe',
        file,
        '--connections',
        '1',
        '--step',
        '10s',
        '--max-rpm',
        '100',
        '--time-scale',
        String(K),
        '--out',
        out,
      ],
      proxyEnv({ https: `http://127.0.0.1:${tiny.port}` }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      `probe: https_proxy sends ${front.url} through the proxy 127.0.0.1:${tiny.port}, and the probe's client (autocannon) cannot go through a proxy`,
    );
    expect(tiny.connects()).toEqual([]);
    expect(front.requests).toEqual([]);
  });
});

describe('proxy settings that send nothing through a proxy', () => {
  const plain = (mock: MockServer): string =>
    `name: direct\ndescription: a loopback mock\ntarget:\n  environment: mock\n  baseUrl: ${mock.url}\nphases:\n  - { name: steady, duration: 12s, rpm: 100 }\n`;

  it('a loopback target with a proxy on another machine is reached directly, and check says so', async () => {
    const mock = await startMockServer({ timeScale: K });
    open.push(mock);
    const { file } = scenarioWorkspace(plain(mock));
    // 192.0.2.1 (TEST-NET-1) is never contacted: the target is this machine.
    const { code, stderr } = await runMain(['check', file, '--time-scale', String(K)], {
      ...proxyEnv({}),
      http_proxy: `http://bob:${PASSWORD}@192.0.2.1:3128`,
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `loadproof: warning: http_proxy names the proxy 192.0.2.1:3128, but the target ${new URL(mock.url).host} is this machine: it is reached directly`,
    );
    expect(stderr).not.toContain(PASSWORD);
    expect(mock.stats().requests.identification.received).toBe(1);
  });

  it('a proxy URL loadproof cannot use: exit 2 naming the variable, without its credentials, and nothing sent', async () => {
    const mock = await startMockServer({ timeScale: K });
    open.push(mock);
    const { file, out } = scenarioWorkspace(plain(mock));
    const { code, stderr } = await runMain(['run', '--no-charts', file, '--time-scale', String(K), '--out', out], {
      ...proxyEnv({}),
      HTTP_PROXY: `socks5://bob:${PASSWORD}@127.0.0.1:1080`,
    });
    expect(code).toBe(2);
    expect(stderr).toContain(
      'HTTP_PROXY=socks5://***@127.0.0.1:1080: a socks5 proxy; loadproof speaks to a proxy in plain HTTP (CONNECT) only; expected http://[user:password@]host[:port]',
    );
    expect(stderr).not.toContain(PASSWORD);
    expect(mock.stats().requests.token.received).toBe(0);
  });

  // A password typed without its percent-encoding: a / or # ends the URL's authority early, an @ is read as the last.
  it.each([
    [`http://bob:pr0xy/S3cret-Pass@127.0.0.1:3128`, 'not a URL'],
    [`http://bob:pr0xy#S3cret-Pass@127.0.0.1:3128`, 'not a URL'],
    [`https://bob:pr0xy@S3cret-Pass@127.0.0.1:3128`, 'a https proxy'],
  ])('HTTPS_PROXY=%s: exit 2 (%s), the password in no output', async (value, why) => {
    const mock = await startMockServer({ timeScale: K });
    open.push(mock);
    const { file } = scenarioWorkspace(plain(mock).replace(mock.url, mock.url.replace('127.0.0.1', 'localhost')));
    const { code, stdout, stderr } = await runCli(['check', file, '--time-scale', String(K)], {
      ...proxyEnv({}),
      HTTPS_PROXY: value,
      HTTP_PROXY: value,
    });
    expect(code, stderr).toBe(2);
    expect(stderr).toContain(`=${value.slice(0, value.indexOf('//') + 2)}***@127.0.0.1:3128: ${why}`);
    for (const text of [stdout, stderr])
      for (const part of ['pr0xy', 'S3cret', 'Pass']) expect(text).not.toContain(part);
    expect(mock.stats().requests.token.received).toBe(0);
  });
});
