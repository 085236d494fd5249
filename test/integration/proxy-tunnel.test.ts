/**
 * The CONNECT tunnel against proxies that misbehave (a stand-in proxy on loopback, scripted per test), and the load's
 * pool through a tunnel: the tunnel is made when a connection is, ahead of the load, never per request.
 */
import { createServer, type Server } from 'node:http';
import {
  type AddressInfo,
  connect,
  createServer as createNetServer,
  type Server as NetServer,
  type Socket,
} from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { classifyError } from '../../src/client/classify.js';
import { ConnectionPool } from '../../src/client/http1/index.js';
import { parseProxyUrl } from '../../src/client/http1/proxy-env.js';
import { openTunnel, proxyLost, ProxyTunnelError } from '../../src/client/http1/tunnel.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

const servers: (Server | NetServer)[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A stand-in proxy: `answer` is given the socket and the head of the CONNECT it received. */
async function fakeProxy(answer: (socket: Socket, head: string) => void): Promise<{ port: number; heads: string[] }> {
  const heads: string[] = [];
  const server = createNetServer((socket) => {
    sockets.push(socket);
    let head = '';
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) {
        heads.push(head);
        answer(socket, head);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, heads };
}

const proxyAt = (port: number, userinfo = ''): ReturnType<typeof parseProxyUrl> =>
  parseProxyUrl('HTTPS_PROXY', `http://${userinfo}127.0.0.1:${port}`);

/** What openTunnel ends with: the socket (then destroyed) or the error. */
function tunnel(port: number, timeoutMs?: number, userinfo = ''): Promise<Error | 'open'> {
  return new Promise((resolve) => {
    openTunnel(
      proxyAt(port, userinfo),
      { host: 'api.example.test', port: 443, tls: false },
      (error, socket) => {
        socket?.destroy();
        resolve(error ?? 'open');
      },
      timeoutMs,
    );
  });
}

describe('a CONNECT tunnel', () => {
  it('asks for host:port with the credentials, URL-decoded, and opens on 200', async () => {
    const proxy = await fakeProxy((socket) => socket.write('HTTP/1.1 200 Connection established\r\n\r\n'));
    expect(await tunnel(proxy.port, undefined, 'j%40doe:pa%3Ass@')).toBe('open');
    expect(proxy.heads).toEqual([
      `CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\nProxy-Authorization: Basic ${Buffer.from('j@doe:pa:ss').toString('base64')}\r\n\r\n`,
    ]);
  });

  it.each([
    [
      'a refusal',
      'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n',
      /it answered CONNECT api\.example\.test:443 with "HTTP\/1\.1 403 Forbidden" \(the proxy does not allow this host or port/,
    ],
    [
      'a demand for credentials',
      'HTTP/1.0 407 Proxy Authentication Required\r\n\r\n',
      /with "HTTP\/1\.0 407 Proxy Authentication Required" \(the proxy wants credentials: put them in the proxy URL/,
    ],
    [
      'not HTTP',
      'SSH-2.0-OpenSSH\r\n\r\n',
      /its answer to CONNECT api\.example\.test:443 is not HTTP\/1\.x: "SSH-2\.0-OpenSSH"/,
    ],
    ['bytes after the 200', 'HTTP/1.1 200 OK\r\n\r\nhello', /it sent bytes after its answer to CONNECT/],
    [
      'a head without end',
      `HTTP/1.1 200 OK\r\n${'X-Pad: y\r\n'.repeat(2000)}`,
      /its answer to CONNECT is over 16384 bytes/,
    ],
    [
      'a control character in the status line',
      'HTTP/1.1 502 Bad\x1b[2J Gateway\r\n\r\n',
      /with "HTTP\/1\.1 502 Bad\?\[2J Gateway"/,
    ],
  ])('ends with a ProxyTunnelError naming the proxy on %s', async (_, answer, message) => {
    const proxy = await fakeProxy((socket) => socket.write(answer));
    const error = await tunnel(proxy.port);
    expect(error).toBeInstanceOf(ProxyTunnelError);
    expect((error as Error).message).toMatch(
      new RegExp(`^through the proxy 127\\.0\\.0\\.1:${proxy.port} \\(HTTPS_PROXY\\): `),
    );
    expect((error as Error).message).toMatch(message);
  });

  it('ends when the proxy says nothing within its time (injected here), or closes first', async () => {
    const silent = await fakeProxy(() => {});
    expect(String(await tunnel(silent.port, 200))).toMatch(
      /the proxy did not answer CONNECT api\.example\.test:443 within 0\.2 s/,
    );
    const closing = await fakeProxy((socket) => socket.destroy());
    const closed = (await tunnel(closing.port)) as ProxyTunnelError;
    expect(String(closed)).toMatch(/the proxy closed the connection before answering CONNECT/);
    // Silent past our time, or closed, the proxy is lost: the route's fault, never the target's.
    expect(closed.routeFault).toBe(true);
  });

  it('a setup we end ourselves says the proxy did not answer in the time it had, not that it closed', async () => {
    const silent = await fakeProxy(() => {});
    const error = await new Promise<ProxyTunnelError>((resolve) => {
      const raw = openTunnel(proxyAt(silent.port, ''), { host: 'api.example.test', port: 443, tls: false }, (e) =>
        resolve(e as ProxyTunnelError),
      );
      raw.once('connect', () => raw.destroy());
    });
    expect(error.message).toMatch(/the proxy did not answer CONNECT api\.example\.test:443 within \d+(\.\d)? s/);
    expect(error.message).not.toMatch(/closed/);
  });

  it('a proxy gone is found lost; one still listening is not', async () => {
    const alive = await fakeProxy(() => {});
    expect(await proxyLost(proxyAt(alive.port, ''))).toBeUndefined();
    const port = alive.port;
    servers.splice(0).forEach((s) => s.close());
    for (const s of sockets.splice(0)) s.destroy();
    const lost = await proxyLost(proxyAt(port, ''));
    expect(lost?.message).toMatch(/the proxy was lost \(ECONNREFUSED\)/);
    expect(lost?.routeFault).toBe(true);
  });

  it("never shows the credentials, and a proxy that refuses connections is the route's fault, not the target's", async () => {
    const proxy = await fakeProxy((socket) => socket.write('HTTP/1.1 403 Forbidden\r\n\r\n'));
    const error = await tunnel(proxy.port, undefined, 'bob:hunter2hunter2@');
    expect((error as Error).message).not.toMatch(/bob|hunter2/);
    const port = proxy.port;
    servers.splice(0).forEach((s) => s.close());
    for (const s of sockets.splice(0)) s.destroy();
    const refused = await tunnel(port);
    expect((refused as Error).message).toMatch(/cannot reach the proxy or lost it \(ECONNREFUSED\)/);
    expect((refused as ProxyTunnelError).routeFault).toBe(true);
  });

  it.each([
    ['HTTP/1.1 407 Proxy Authentication Required', true, 'error'],
    ['HTTP/1.1 403 Forbidden', true, 'error'],
    ['HTTP/1.1 500 Unable to connect', true, 'error'],
    ['SSH-2.0-OpenSSH', true, 'error'],
    ['HTTP/1.1 502 Bad Gateway', false, 'refused'],
    ['HTTP/1.1 503 Service Unavailable', false, 'refused'],
    ['HTTP/1.1 504 Gateway Timeout', false, 'timeout'],
  ])(
    'tells the proxy refusing "%s" itself (the route: %s) from a proxy that could not reach the target',
    async (line, byProxy, outcome) => {
      const proxy = await fakeProxy((socket) => socket.write(`${line}\r\n\r\n`));
      const error = (await tunnel(proxy.port)) as ProxyTunnelError;
      expect(error).toBeInstanceOf(ProxyTunnelError);
      expect(error.routeFault).toBe(byProxy);
      expect(classifyError(error, false)).toBe(outcome);
    },
  );
});

describe('the pool through a tunnel', () => {
  it('makes the tunnels when it opens connections ahead of the load, and sends the requests on them', async () => {
    const target = createServer((req, res) => req.resume().on('end', () => res.end('{"ok":true}')));
    servers.push(target);
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const targetPort = (target.address() as AddressInfo).port;
    // A proxy that connects each CONNECT to the target and then relays bytes both ways.
    const proxy = await fakeProxy((socket, head) => {
      expect(head.startsWith(`CONNECT 127.0.0.1:${targetPort} HTTP/1.1\r\n`)).toBe(true);
      const upstream = connect(targetPort, '127.0.0.1', () => {
        socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
        socket.pipe(upstream).pipe(socket);
      });
      sockets.push(upstream);
    });
    const pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `http://127.0.0.1:${targetPort}`, 2, {
      proxy: proxyAt(proxy.port),
    });
    try {
      expect(await pool.open(2, 10_000)).toBe(2);
      expect(proxy.heads).toHaveLength(2);
      const bytes = `GET / HTTP/1.1\r\nhost: 127.0.0.1:${targetPort}\r\n\r\n`;
      for (let i = 0; i < 4; i++) {
        const response = await new Promise((resolve) =>
          pool.request(
            bytes,
            5000,
            () => {},
            (e, r) => resolve(r ?? e),
          ),
        );
        expect(response).toMatchObject({ status: 200 });
      }
      // Four requests on the two warm tunnels: none was opened for a request.
      expect(proxy.heads).toHaveLength(2);
    } finally {
      pool.close();
    }
  });
});
