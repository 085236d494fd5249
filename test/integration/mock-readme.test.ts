/**
 * What the mock's guide (docs/guides/mock.md) promises, checked against the real server over HTTP: routing
 * (404/405 with Allow, HEAD, CONNECT), the order of the token endpoint's checks, the pipelines'
 * order (auth, then the body, then the limits: an invalid request costs no quota), obfuscation's
 * rules, and the stats and log shapes as the guide prints them.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { ManualClock } from '../../src/core/clock.js';
import { UsageError } from '../../src/core/errors.js';
import {
  LOG_PATH,
  type MockServer,
  type MockServerOptions,
  startMockServer,
  STATS_PATH,
} from '../../src/mock/index.js';
import type { ProfileName } from '../../src/spec/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { bearer, call, getToken, postJson, tokenRequest } from '../helpers/http.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const start = async (options: MockServerOptions = {}): Promise<MockServer> =>
  (server = await startMockServer({ profile: 'zero', ...options }));

// The mock's guide (it was the README's mock sections), whose promises these tests check.
const README = readFileSync(new URL('../../docs/guides/mock.md', import.meta.url), 'utf8');
const NOTE = 'Seen John Smith on 04/12/2026.';

/** Sends raw bytes to the mock (loopback only) and returns everything it answered until it closed. */
function rawExchange(s: MockServer, bytes: string | Buffer): Promise<string> {
  const { hostname, port } = new URL(s.url);
  if (hostname !== '127.0.0.1') throw new Error(`tests only talk to loopback, not ${hostname}`);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // the server may close while we still write
    socket.on('close', () => resolve(received));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no close within 10 s; got ${JSON.stringify(received.slice(0, 200))}`));
    });
  });
}
const statusLine = (answer: string): string => answer.slice(0, answer.indexOf('\r\n'));
const headerOf = (answer: string, name: string): string | undefined =>
  new RegExp(`\r\n${name}: ([^\r]*)\r\n`, 'i').exec(answer)?.[1];
const bodyOf = (answer: string): unknown => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));

async function head(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const res = await request(url, { method: 'HEAD', headers, headersTimeout: 10_000, bodyTimeout: 10_000 });
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
}

describe('routing (README: Errors, 404 / 405 with Allow)', () => {
  it('answers HEAD on every GET route with the GET headers and no body', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    for (const [path, headers] of [
      [STATS_PATH, {}],
      [LOG_PATH, {}],
      [API_PATHS.session, auth],
    ] as const) {
      const reply = await head(s.url + path, headers);
      expect({ path, status: reply.status, body: reply.body }).toEqual({ path, status: 200, body: '' });
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(reply.headers['content-length'])).toBeGreaterThan(0);
    }
  });

  it("answers 405 with Allow for a wrong method on every route, the mock's own included", async () => {
    const s = await start();
    const cases = [
      { method: 'POST', path: STATS_PATH, allow: 'GET, HEAD' },
      { method: 'DELETE', path: LOG_PATH, allow: 'GET, HEAD' },
      { method: 'POST', path: API_PATHS.session, allow: 'GET, HEAD' },
      { method: 'GET', path: API_PATHS.token, allow: 'POST' },
      { method: 'PUT', path: API_PATHS.identification, allow: 'POST' },
      { method: 'HEAD', path: API_PATHS.obfuscation, allow: 'POST' },
    ] as const;
    for (const { method, path, allow } of cases) {
      const res = await request(s.url + path, { method, headersTimeout: 10_000 });
      const text = await res.body.text();
      expect({ method, path, status: res.statusCode, allow: res.headers.allow }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      if (method !== 'HEAD')
        expect(JSON.parse(text)).toEqual({
          error: 'method_not_allowed',
          error_description: expect.stringContaining(allow),
        });
    }
    // The README's stats: 404s and 405s are counted under "other", not under the endpoint.
    const { requests } = s.stats();
    expect(requests.other).toMatchObject({ received: 6, byStatus: { '405': 6 } });
    expect([
      requests.token.received,
      requests.session.received,
      requests.identification.received,
      requests.obfuscation.received,
    ]).toEqual([0, 0, 0, 0]);
  });

  it('answers CONNECT with 405 and Allow instead of closing silently, counts it, and stays up', async () => {
    const s = await start();
    const answer = await rawExchange(s, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nhost: 127.0.0.1:443\r\n\r\n');
    expect(statusLine(answer)).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(headerOf(answer, 'allow')).toBe('GET, HEAD, POST');
    expect(bodyOf(answer)).toEqual({
      error: 'method_not_allowed',
      error_description: expect.stringContaining('CONNECT'),
    });
    expect(s.stats().requests.other).toMatchObject({ received: 1, byStatus: { '405': 1 } });
    expect((await call(s.url + STATS_PATH)).status).toBe(200);
  });

  it.each(['/__proto__', '/constructor', '/toString', '/hasOwnProperty', '/nope'])(
    'answers 404 not_found at %s',
    async (path) => {
      const s = await start();
      const reply = await call(s.url + path);
      expect(reply.status).toBe(404);
      expect(reply.json).toEqual({ error: 'not_found', error_description: `no endpoint at ${path}` });
    },
  );

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'refuses a profile named %s like any unknown one',
    async (name) => {
      await expect(startMockServer({ profile: name as ProfileName })).rejects.toThrow(UsageError);
      await expect(startMockServer({ profile: name as ProfileName })).rejects.toThrow(
        /^profile: expected one of nominal, degraded, tight, flaky, stall, zero, leaky, got/,
      );
    },
  );
});

describe('token endpoint (README: "checks in this order: 415, 413, 415, 400, 401, 403")', () => {
  it('answers 415 before reading the body: a 1.2 MB form body gets 415, not 413', async () => {
    const s = await start();
    const body = 'client_id=x&pad=' + 'x'.repeat(1_200_000);
    const answer = await rawExchange(
      s,
      `POST ${API_PATHS.token} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(statusLine(answer)).toBe('HTTP/1.1 415 Unsupported Media Type');
    expect(bodyOf(answer)).toMatchObject({ error: 'invalid_request' });
  });

  it.each([
    {
      name: 'not sent as JSON, over the cap, bad credentials',
      type: 'text/plain',
      body: 'x'.repeat(20_000),
      status: 415,
      error: 'invalid_request',
    },
    {
      name: 'over the 16 KiB cap, not valid JSON',
      type: 'application/json',
      body: '{' + 'x'.repeat(16_384),
      status: 413,
      error: 'payload_too_large',
    },
    {
      name: 'not valid JSON, bad credentials',
      type: 'application/json',
      body: '{"client_id": ',
      status: 415,
      error: 'invalid_request',
    },
    { name: 'not an object', type: 'application/json', body: '[1]', status: 400, error: 'invalid_request' },
    {
      name: 'a wrong secret and a wrong audience',
      type: 'application/json',
      fields: { client_secret: 'wrong', audience: 'http://elsewhere' },
      status: 401,
      error: 'invalid_client',
    },
    {
      name: 'a wrong audience',
      type: 'application/json',
      fields: { audience: 'http://elsewhere' },
      status: 403,
      error: 'access_denied',
    },
  ])('answers $status $error for a body $name', async ({ type, body, fields, status, error }) => {
    const s = await start();
    const reply = await call(s.url + API_PATHS.token, {
      method: 'POST',
      headers: { 'content-type': type },
      body: body ?? JSON.stringify(tokenRequest(s, fields)),
    });
    expect(reply.status).toBe(status);
    expect(reply.json).toEqual(expect.objectContaining({ error, error_description: expect.any(String) }));
  });

  it('answers 413 over the cap in the OAuth shape, naming the cap', async () => {
    const s = await start();
    const reply = await postJson(s.url + API_PATHS.token, tokenRequest(s, { pad: 'x'.repeat(16_384) }));
    expect(reply.status).toBe(413);
    expect(reply.json).toEqual({
      error: 'payload_too_large',
      error_description: "the request body is over this endpoint's limit of 16384 bytes",
      max_bytes: 16_384,
    });
  });

  it('is not rate-limited (nor is the session endpoint)', async () => {
    const s = await start({ profile: 'nominal', limits: { sustainedRpm: 1, burstRpm: 1 } });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => getToken(s)));
    const sessions = await Promise.all(tokens.map((t) => call(s.url + API_PATHS.session, { headers: bearer(t) })));
    expect(sessions.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('pipelines (README: "authentication, then the body, then the limits")', () => {
  it('checks authentication before the content type', async () => {
    const s = await start();
    const reply = await call(s.url + API_PATHS.identification, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: NOTE,
    });
    expect(reply.status).toBe(401);
  });

  it('checks the content type before the size: a 70 KiB text/plain body gets 415', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    const reply = await call(s.url + API_PATHS.identification, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: 'x'.repeat(70 * 1024),
    });
    expect(reply.status).toBe(415);
    expect(reply.json.error).toBe('unsupported_media_type');
  });

  it('charges no quota for an invalid request: with a bucket of 1, five refusals and then a 200', async () => {
    const clock = new ManualClock();
    const s = await start({ profile: 'nominal', clock, limits: { sustainedRpm: 1, burstRpm: 1 } });
    const auth = bearer(await getToken(s));
    const url = s.url + API_PATHS.identification;
    const refusals = [
      await call(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: NOTE }),
      await postJson(url, '{"text": ', auth),
      await postJson(url, { text: 42 }, auth),
      await postJson(url, { text: 'a'.repeat(854) }, auth),
      await postJson(url, { text: NOTE, pad: 'x'.repeat(64 * 1024) }, auth),
    ];
    expect(refusals.map((r) => [r.status, r.json.error])).toEqual([
      [415, 'unsupported_media_type'],
      [400, 'invalid_json'],
      [400, 'invalid_request'],
      [413, 'text_too_long'],
      [413, 'payload_too_large'],
    ]);
    const served = postJson(url, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    clock.advanceTo(10_000);
    expect((await served).status).toBe(200);
    expect((await postJson(url, { text: NOTE }, auth)).status).toBe(429);
  });

  it('answers 413 text_too_long with the estimate and the limit in the body', async () => {
    const s = await start();
    const reply = await postJson(
      s.url + API_PATHS.identification,
      { text: 'a'.repeat(900) },
      bearer(await getToken(s)),
    );
    expect(reply.status).toBe(413);
    expect(reply.json).toMatchObject({ error: 'text_too_long', estimated_tokens: 1080, max_tokens: 1024 });
  });

  it('answers 429 too_many_in_flight with --max-in-flight 1 --queue-limit 0 and two calls at once', async () => {
    const clock = new ManualClock();
    const s = await start({ profile: 'nominal', clock, limits: { maxInFlight: 1, queueLimit: 0 } });
    const auth = bearer(await getToken(s));
    const first = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    const second = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    expect(second.status).toBe(429);
    expect(second.json.error).toBe('too_many_in_flight');
    clock.advanceTo(10_000);
    expect((await first).status).toBe(200);
  });
});

describe('obfuscation (README: Endpoints and payloads)', () => {
  const surrogateText = 'Seen 😀 John Smith.'; // the emoji is two UTF-16 units, at 5 and 6

  it.each([
    {
      name: 'a start inside a surrogate pair',
      entity: { type: 'NAME', start: 6, end: 18 },
      problem:
        'entities[0].start: offset 6 splits a surrogate pair (one character outside the BMP, such as an emoji); expected an offset on a character boundary',
    },
    {
      name: 'an end inside a surrogate pair',
      entity: { type: 'NAME', start: 0, end: 6 },
      problem:
        'entities[0].end: offset 6 splits a surrogate pair (one character outside the BMP, such as an emoji); expected an offset on a character boundary',
    },
  ])('answers 400 for $name, naming the entity and the offset', async ({ entity, problem }) => {
    const s = await start();
    const reply = await postJson(
      s.url + API_PATHS.obfuscation,
      { text: surrogateText, entities: [entity] },
      bearer(await getToken(s)),
    );
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid_request', problems: [problem] });
  });

  it('accepts spans around a surrogate pair, and masks with one * per UTF-16 unit', async () => {
    const s = await start();
    const reply = await postJson(
      s.url + API_PATHS.obfuscation,
      { text: surrogateText, entities: [{ type: 'X', start: 5, end: 7 }], style: 'mask' },
      bearer(await getToken(s)),
    );
    expect(reply.status).toBe(200);
    expect(reply.json.text).toBe('Seen ** John Smith.');
  });

  it('answers 400 invalid_json for a body that is not JSON, and 400 beyond 10,000 entities', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    expect((await postJson(s.url + API_PATHS.obfuscation, '{"text": ', auth)).json.error).toBe('invalid_json');
    const many = Array.from({ length: 10_001 }, (_, i) => ({ type: 'X', start: i, end: i + 1 }));
    const reply = await postJson(s.url + API_PATHS.obfuscation, { text: 'a'.repeat(10_001), entities: many }, auth);
    expect(reply.status).toBe(400);
    expect(reply.json.problems).toEqual(['entities: expected at most 10000 entities, got 10001']);
  });

  it('has the documented limits: 1,000 rpm, 2,000 rpm for 5 minutes, 512 in flight, a queue of 256, 15 s', async () => {
    const s = await start({ profile: 'nominal' });
    expect(s.stats().obfuscation.limits).toEqual({
      rate: { sustainedRpm: 1000, burstRpm: 2000, burstMinutes: 5 },
      maxInFlight: 512,
      queueLimit: 256,
      timeoutMs: 15_000,
    });
  });
});

describe('the walkthrough (README: Walkthrough with curl)', () => {
  it('gives the answers the walkthrough prints for identification and obfuscation', async () => {
    const s = await start();
    const auth = bearer(await getToken(s));
    const found = await postJson(
      s.url + API_PATHS.identification,
      { text: 'Patient John Smith (MRN 12345678), DOB 04/12/1961; phone (555) 123-4567.' },
      auth,
    );
    expect(found.json.entities[0]).toEqual({ type: 'NAME', text: 'John Smith', start: 8, end: 18, score: 0.931 });
    expect(found.json).toMatchObject({
      truncated: false,
      usage: { input_tokens: 87, output_tokens: 75, output_token_cap: 300 },
    });
    const entities = [
      { type: 'NAME', start: 5, end: 15 },
      { type: 'DATE', start: 19, end: 29 },
    ];
    const hidden = await postJson(s.url + API_PATHS.obfuscation, { text: NOTE, entities }, auth);
    expect(hidden.json).toMatchObject({ text: 'Seen [NAME] on [DATE].', style: 'tag' });
  });
});

/** The keys of the README's JSON example of GET /__mock/stats, two levels deep ("..." entries skipped). */
function readmeStatsExample(): Record<string, unknown> {
  const section = README.slice(README.indexOf('### Stats: `GET /__mock/stats`'));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  return JSON.parse(json) as Record<string, unknown>;
}
const keysOf = (value: unknown): string[] => Object.keys(value as object).sort();
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The key paths of `value` wherever the README's example spells its keys out (an example object
 * written `{"...": …}` stands for "not shown here", and maps keyed by data such as byStatus are not
 * compared below their own level).
 */
function keyPaths(value: unknown, example: unknown, at = ''): string[] {
  if (!isObject(example) || '...' in example || !isObject(value)) return [];
  if (at.endsWith('.byStatus')) return [at];
  return keysOf(value).flatMap((key) => [`${at}.${key}`, ...keyPaths(value[key], example[key], `${at}.${key}`)]);
}

describe('stats and log (README: Stats, Endpoints)', () => {
  it("has the fields of the README's stats example, no more and no fewer", async () => {
    const s = await start({ profile: 'nominal' });
    const stats = (await call(s.url + STATS_PATH)).json as Record<string, unknown>;
    expect(keyPaths(stats, readmeStatsExample())).toEqual(keyPaths(readmeStatsExample(), readmeStatsExample()));
  });

  it('logs pipeline requests with the fields the README lists', async () => {
    const s = await start();
    await postJson(
      s.url + API_PATHS.identification,
      { text: NOTE },
      { ...bearer(await getToken(s)), 'x-loadproof-seq': '7', 'x-loadproof-attempt': '1' },
    );
    const log = (await call(s.url + LOG_PATH)).json;
    const listed = /`\{entries: \[\{([^}]*)\}\], droppedOldest\}`/
      .exec(README)![1]!
      .split(',')
      .map((k) => k.trim());
    expect(keysOf(log)).toEqual(['droppedOldest', 'entries']);
    expect(keysOf(log.entries[0])).toEqual([...listed].sort());
    expect(log.entries[0]).toMatchObject({ endpoint: 'identification', status: 200, seq: 7, attempt: 1 });
  });
});
