/** The token endpoint and bearer checks of the mock, over real HTTP on an ephemeral port. */
import { afterEach, describe, expect, it } from 'vitest';

import { ManualClock } from '../../src/core/clock.js';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { bearer, call, getToken, postJson, tokenRequest } from '../helpers/http.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const start = async (options: MockServerOptions = {}): Promise<MockServer> =>
  (server = await startMockServer({ profile: 'zero', ...options }));

describe('POST /oauth/token', () => {
  it('issues a bearer token with its lifetime, not to be cached', async () => {
    const s = await start({ tokenTtlS: 900 });
    const reply = await postJson(s.url + API_PATHS.token, tokenRequest(s));
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      access_token: expect.stringMatching(/^lpmock_at_[\w-]{40,}$/),
      token_type: 'Bearer',
      expires_in: 900,
    });
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  // The spec's audience is `{base_url}` itself (its paths are written `{base_url}/oauth/token`),
  // compared exactly as the real service would: no spelling of it other than the base URL is accepted.
  it.each([
    ['a trailing slash', (u: string) => `${u}/`],
    ['a double slash', (u: string) => `${u}//`],
    ['a trailing dot on the host', (u: string) => u.replace('127.0.0.1', '127.0.0.1.')],
    ['the scheme in capitals', (u: string) => u.replace('http:', 'HTTP:')],
    ['a path after it', (u: string) => `${u}/oauth`],
    ['a path in other case', (u: string) => `${u}/Oauth/token`],
    ['a query', (u: string) => `${u}?x=1`],
    ['a fragment', (u: string) => `${u}#`],
    ['spaces around it', (u: string) => ` ${u} `],
    ['localhost for 127.0.0.1', (u: string) => u.replace('127.0.0.1', 'localhost')],
    ['a default port spelled out', (u: string) => u.replace(/:\d+$/, ':80')],
  ])('answers 403 for the base URL with %s', async (_what, variant) => {
    const s = await start();
    const audience = variant(s.url);
    expect(audience).not.toBe(s.url);
    const reply = await postJson(s.url + API_PATHS.token, tokenRequest(s, { audience }));
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual({
      error: 'access_denied',
      error_description: expect.stringContaining(`expected the base URL "${s.url}"`),
    });
  });

  it('accepts the base URL exactly as it is', async () => {
    const s = await start();
    expect((await postJson(s.url + API_PATHS.token, tokenRequest(s, { audience: s.url }))).status).toBe(200);
  });

  it.each([
    {
      name: 'a form-encoded body',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    },
    { name: 'no content type', headers: {}, body: '{}' },
    { name: 'invalid JSON', headers: { 'content-type': 'application/json' }, body: '{"client_id": ' },
  ])('answers 415 for $name', async ({ headers, body }) => {
    const s = await start();
    const reply = await call(s.url + API_PATHS.token, { method: 'POST', headers, body });
    expect(reply.status).toBe(415);
    expect(reply.json).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('JSON') });
  });

  it.each([
    { name: 'a body that is not an object', body: [1, 2], error: 'invalid_request', mention: 'JSON object' },
    { name: 'a missing grant_type', omit: 'grant_type', error: 'invalid_request', mention: 'grant_type' },
    { name: 'a missing client_id', omit: 'client_id', error: 'invalid_request', mention: 'client_id' },
    { name: 'a missing client_secret', omit: 'client_secret', error: 'invalid_request', mention: 'client_secret' },
    {
      name: 'a wrong grant type',
      set: { grant_type: 'password' },
      error: 'unsupported_grant_type',
      mention: 'password',
    },
  ])('answers 400 $error for $name', async ({ body, omit, set, error, mention }) => {
    const s = await start();
    const request: Record<string, unknown> = tokenRequest(s, set);
    if (omit) delete request[omit];
    const reply = await postJson(s.url + API_PATHS.token, body ?? request);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error, error_description: expect.stringContaining(mention) });
  });

  it.each([
    { name: 'a wrong secret', set: { client_secret: 'not-the-secret' } },
    { name: 'an unknown client', set: { client_id: 'someone-else' } },
  ])('answers 401 invalid_client for $name, without echoing the secret', async ({ set }) => {
    const s = await start();
    const reply = await postJson(s.url + API_PATHS.token, tokenRequest(s, set));
    expect(reply.status).toBe(401);
    expect(reply.json.error).toBe('invalid_client');
    expect(reply.text).not.toContain('not-the-secret');
  });

  it.each([
    { name: 'a missing audience', set: { audience: undefined }, mention: 'audience is missing' },
    { name: 'a wrong audience', set: { audience: 'https://api.example.com' }, mention: 'https://api.example.com' },
  ])('answers 403 for $name', async ({ set, mention }) => {
    const s = await start();
    const reply = await postJson(s.url + API_PATHS.token, tokenRequest(s, set));
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual({ error: 'access_denied', error_description: expect.stringContaining(mention) });
  });
});

describe('bearer tokens on the other endpoints', () => {
  it.each([
    { name: 'no Authorization header', headers: {} as Record<string, string>, mention: 'no bearer token' },
    {
      name: 'a token this server did not issue',
      headers: bearer('forged'),
      mention: 'not one this server holds: never issued, or forgotten',
    },
    { name: 'a non-bearer scheme', headers: { authorization: 'Basic abc' }, mention: 'no bearer token' },
  ])('answers 401 with a WWW-Authenticate challenge for $name', async ({ headers, mention }) => {
    const s = await start();
    const reply = await call(s.url + API_PATHS.session, { headers });
    expect(reply.status).toBe(401);
    expect(reply.headers['www-authenticate']).toMatch(/^Bearer realm="loadproof-mock"/);
    expect(reply.json).toEqual({ error: 'invalid_token', error_description: expect.stringContaining(mention) });
  });

  it('answers 401 for an expired token, and accepts it until then (model time)', async () => {
    const clock = new ManualClock();
    const s = await start({ clock, tokenTtlS: 60 });
    const token = await getToken(s);
    clock.advanceTo(59_999);
    expect((await call(s.url + API_PATHS.session, { headers: bearer(token) })).status).toBe(200);
    clock.advanceTo(60_000);
    const reply = await call(s.url + API_PATHS.session, { headers: bearer(token) });
    expect(reply.status).toBe(401);
    expect(reply.json.error_description).toContain('expired');
    expect(reply.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});

describe('GET /precision/normalize/session', () => {
  it('answers 200 with a new UUID each time', async () => {
    const s = await start();
    const token = await getToken(s);
    const headers = { ...bearer(token), accept: 'application/json' };
    const a = await call(s.url + API_PATHS.session, { headers });
    const b = await call(s.url + API_PATHS.session, { headers });
    expect(a.status).toBe(200);
    expect(Object.keys(a.json)).toEqual(['session_id']);
    expect(a.json.session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.json.session_id).not.toBe(a.json.session_id);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const s = await start();
    expect((await call(`${s.url}/nope`)).status).toBe(404);
    const reply = await call(s.url + API_PATHS.token);
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('POST');
  });
});
