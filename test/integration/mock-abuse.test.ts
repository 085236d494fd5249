/**
 * The mock under abuse, over raw sockets (node:net) on 127.0.0.1: unfinished chunked bodies, bodies
 * past an endpoint's cap, more connections than the cap, slow senders. Assertions are on the mock's
 * own accounting (`/__mock/stats`: `buffered`, `connections`), never on RSS or on how fast it answers.
 */
import { connect, type Socket } from 'node:net';

import { Pool } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { type MockServer, type MockServerOptions, startMockServer, STATS_PATH } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { bearer, call, getToken, postJson } from '../helpers/http.js';

/** Sockets of the test, destroyed after each one whatever happened. */
const sockets: Socket[] = [];
let server: MockServer | undefined;
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});
const start = async (options: MockServerOptions = {}): Promise<MockServer> =>
  (server = await startMockServer({ profile: 'zero', ...options }));

/** A raw connection: what it received so far and whether the server closed it. */
interface RawConnection {
  readonly socket: Socket;
  readonly received: () => string;
  readonly closed: () => boolean;
}

/** Connects to the mock (loopback only) and writes `bytes` once connected. */
function openRaw(mock: MockServer, bytes = ''): Promise<RawConnection> {
  const { hostname, port } = new URL(mock.url);
  if (hostname !== '127.0.0.1') throw new Error(`tests only talk to loopback, not ${hostname}`);
  return new Promise((resolve, reject) => {
    let received = '';
    let closed = false;
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined); // a reset is one way of being closed
    socket.once('connect', () => {
      if (bytes !== '') socket.write(bytes);
      resolve({ socket, received: () => received, closed: () => closed });
    });
    socket.once('error', reject);
  });
}

/** The head and one chunk of a chunked POST that never ends (no terminating 0-size chunk). */
function unfinishedPost(path: string, headers: Record<string, string>, chunk: string): string {
  const head = Object.entries({ host: '127.0.0.1', 'transfer-encoding': 'chunked', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `POST ${path} HTTP/1.1\r\n${head}\r\n${Buffer.byteLength(chunk, 'latin1').toString(16)}\r\n${chunk}\r\n`;
}

const statusOf = (c: RawConnection): number | null => {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(c.received());
  return match === null ? null : Number(match[1]);
};
const bodyOf = (c: RawConnection): unknown => JSON.parse(c.received().slice(c.received().indexOf('\r\n\r\n') + 4));
const openAll = (n: number, mock: MockServer, bytes: (i: number) => string): Promise<RawConnection[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => openRaw(mock, bytes(i))));
const waitFor = <T>(check: () => T): Promise<T> => vi.waitFor(check, { timeout: 10_000, interval: 20 });

const JSON_TYPE = { 'content-type': 'application/json' };
const tokenPrefix = (s: MockServer): string => `{"client_id":"${s.clientId}","pad":"`;

describe('unfinished and oversized bodies', () => {
  it('answers 415 before reading a body not sent as JSON, and closes the connection (token and identification)', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    const plain = { 'content-type': 'text/plain' };
    const peakBefore = s.stats().buffered.peakBytes; // the token call's own small body
    const token = await openAll(100, s, () => unfinishedPost(API_PATHS.token, plain, 'client_id=x&'));
    const ident = await openAll(100, s, () =>
      unfinishedPost(API_PATHS.identification, { ...plain, ...auth }, 'Patient John Smith'),
    );
    await waitFor(() => expect([...token, ...ident].filter((c) => !c.closed())).toHaveLength(0));
    expect(token.map(statusOf)).toEqual(Array(100).fill(415));
    expect(bodyOf(token[0]!)).toMatchObject({ error: 'invalid_request' });
    expect(ident.map(statusOf)).toEqual(Array(100).fill(415));
    expect(bodyOf(ident[0]!)).toMatchObject({ error: 'unsupported_media_type' });
    // Not a byte of those bodies was read.
    expect(s.stats().buffered).toMatchObject({ bytes: 0, requests: 0, peakBytes: peakBefore });
  });

  it('answers 413 payload_too_large as soon as a body passes its endpoint cap, without waiting for the rest, and closes', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    const token = await openAll(100, s, () =>
      unfinishedPost(API_PATHS.token, JSON_TYPE, tokenPrefix(s) + 'x'.repeat(17 * 1024)),
    );
    const ident = await openAll(100, s, () =>
      unfinishedPost(API_PATHS.identification, { ...JSON_TYPE, ...auth }, '{"text":"' + 'x'.repeat(65 * 1024)),
    );
    await waitFor(() => expect([...token, ...ident].filter((c) => !c.closed())).toHaveLength(0));
    expect([...token, ...ident].map(statusOf)).toEqual(Array(200).fill(413));
    expect(bodyOf(token[0]!)).toEqual({
      error: 'payload_too_large',
      error_description: expect.stringContaining('16384 bytes'),
      max_bytes: 16_384,
    });
    expect(bodyOf(ident[0]!)).toMatchObject({ error: 'payload_too_large', max_bytes: 65_536 });
    await waitFor(() => expect(s.stats().buffered).toMatchObject({ bytes: 0, requests: 0 }));
    // Never more than one cap's worth per request was held.
    expect(s.stats().buffered.peakBytes).toBeLessThanOrEqual(100 * 16_384 + 100 * 65_536);
  });

  it('holds at most the body budget across 200 unfinished bodies, refuses the rest with 503, releases every byte when the sockets close, and serves after', async () => {
    const budgetBytes = 256 * 1024;
    const s = await start({ bodyBudgetBytes: budgetBytes });
    const auth = bearer(await getToken(s));
    const chunk = 'x'.repeat(4096);
    const token = await openAll(100, s, () => unfinishedPost(API_PATHS.token, JSON_TYPE, tokenPrefix(s) + chunk));
    const ident = await openAll(100, s, () =>
      unfinishedPost(API_PATHS.identification, { ...JSON_TYPE, ...auth }, '{"text":"' + chunk),
    );
    const all = [...token, ...ident];
    // Every request is either holding its bytes or was refused (800 KiB offered for a 256 KiB budget).
    await waitFor(() => {
      const stats = s.stats();
      expect(stats.buffered.requests + stats.buffered.refused).toBe(200);
      expect(all.filter((c) => statusOf(c) === 503 && c.closed())).toHaveLength(stats.buffered.refused);
    });
    const during = s.stats().buffered;
    expect(during.budgetBytes).toBe(budgetBytes);
    expect(during.requests).toBeGreaterThan(0);
    expect(during.refused).toBeGreaterThan(0);
    expect(during.bytes).toBeLessThanOrEqual(budgetBytes);
    expect(during.peakBytes).toBeLessThanOrEqual(budgetBytes);
    const refused = all.find((c) => statusOf(c) === 503)!;
    expect(refused.received()).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(bodyOf(refused)).toMatchObject({ error: 'server_busy' });
    // The held ones are not answered: their bodies are still coming.
    expect(all.filter((c) => !c.closed())).toHaveLength(during.requests);

    for (const c of all) c.socket.destroy();
    await waitFor(() => expect(s.stats().buffered).toMatchObject({ bytes: 0, requests: 0 }));
    expect(s.stats().buffered.peakBytes).toBeLessThanOrEqual(budgetBytes);
    const normal = await postJson(s.url + API_PATHS.identification, { text: 'Seen Mary Lee on 01/02/2026.' }, auth);
    expect(normal.status).toBe(200);
  });

  it('closes a slow sender (slowloris headers, a body that never ends) at the request timeout and releases its bytes', async () => {
    const s = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const auth = bearer(await getToken(s));
    const loris = await openRaw(s, `GET ${STATS_PATH} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: 1\r\n`);
    const body = await openRaw(
      s,
      unfinishedPost(API_PATHS.identification, { ...JSON_TYPE, ...auth }, '{"text":"Patient'),
    );
    await waitFor(() => expect(s.stats().buffered.requests).toBe(1));
    // Nothing more is sent; the server, not the test, ends both.
    await waitFor(() => expect([loris.closed(), body.closed()]).toEqual([true, true]));
    await waitFor(() => expect(s.stats().buffered).toMatchObject({ bytes: 0, requests: 0 }));
    expect(statusOf(loris)).toBe(408);
  });
});

describe('connections', () => {
  it('refuses connections beyond the cap, stays up, and serves a normal client once they close', async () => {
    const s = await start({ maxConnections: 20 });
    expect(s.stats().connections.max).toBe(20);
    const idle: RawConnection[] = [];
    for (let i = 0; i < 30; i++) idle.push(await openRaw(s));
    await waitFor(() => expect(s.stats().connections.refused).toBe(10));
    await waitFor(() => expect(idle.filter((c) => c.closed())).toHaveLength(10));
    expect(s.stats().connections.open).toBe(20);
    for (const c of idle) c.socket.destroy();
    await waitFor(() => expect(s.stats().connections.open).toBe(0));
    const auth = bearer(await getToken(s));
    expect((await postJson(s.url + API_PATHS.identification, { text: 'Seen Mary Lee.' }, auth)).status).toBe(200);
  });

  it('has a default cap above the in-flight gates and their queues of both pipelines', async () => {
    const s = await start({ profile: 'nominal' });
    const stats = (await call(s.url + STATS_PATH)).json;
    const held = (e: { limits: { maxInFlight: number; queueLimit: number } }): number =>
      e.limits.maxInFlight + e.limits.queueLimit;
    expect(stats.connections.max).toBe(1024);
    expect(stats.connections.max).toBeGreaterThanOrEqual(held(stats.identification) + held(stats.obfuscation));
    expect(stats.buffered).toEqual({ bytes: 0, requests: 0, peakBytes: 0, budgetBytes: 32 * 1024 * 1024, refused: 0 });
  });

  it('keeps one keep-alive connection for a client across token, errors answered early and pipeline calls', async () => {
    const s = await start();
    const pool = new Pool(s.url, { connections: 1, pipelining: 1 });
    try {
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> => {
        const res = await pool.request({
          path,
          method: 'POST',
          headers: { ...JSON_TYPE, ...headers },
          body: JSON.stringify(body),
        });
        await res.body.text();
        return res.statusCode;
      };
      const token = await pool.request({
        path: API_PATHS.token,
        method: 'POST',
        headers: JSON_TYPE,
        body: JSON.stringify({
          client_id: s.clientId,
          client_secret: s.clientSecret,
          audience: s.audience,
          grant_type: 'client_credentials',
        }),
      });
      const auth = bearer(((await token.body.json()) as { access_token: string }).access_token);
      // A 401 answered before the (small, declared) body is read keeps the connection.
      expect(await post(API_PATHS.identification, { text: 'Seen Mary Lee.' })).toBe(401);
      for (let i = 0; i < 5; i++)
        expect(await post(API_PATHS.identification, { text: 'Seen Mary Lee.' }, auth)).toBe(200);
      expect(s.stats().connections.accepted).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
