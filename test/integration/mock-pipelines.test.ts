/** Identification and obfuscation over real HTTP: payloads, errors, limits, faults and stats. */
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { ManualClock } from '../../src/core/clock.js';
import { type MockServer, type MockServerOptions, startMockServer, STATS_PATH } from '../../src/mock/index.js';
import { API_PATHS } from '../../src/spec/index.js';
import { bearer, call, getToken, postJson } from '../helpers/http.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts a server (profile `zero` unless told) and returns it with a valid token. */
async function start(options: MockServerOptions = {}): Promise<{ s: MockServer; auth: Record<string, string> }> {
  server = await startMockServer({ profile: 'zero', ...options });
  return { s: server, auth: bearer(await getToken(server)) };
}

const NOTE = 'Patient John Smith (MRN 12345678), DOB 04/12/1961; phone (555) 123-4567.';

describe('POST identification', () => {
  it('returns the PHI entities with offsets, scores and token usage, and Server-Timing in model ms', async () => {
    const { s, auth } = await start();
    const reply = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    expect(reply.status).toBe(200);
    expect(reply.json.truncated).toBe(false);
    expect(reply.json.entities.map((e: { type: string }) => e.type)).toEqual(['NAME', 'MRN', 'DATE', 'PHONE']);
    for (const e of reply.json.entities) expect(NOTE.slice(e.start, e.end)).toBe(e.text);
    expect(reply.json.usage).toEqual({
      input_tokens: Math.ceil(NOTE.length * 1.2),
      output_tokens: expect.any(Number),
      output_token_cap: 300,
    });
    expect(reply.headers['server-timing']).toMatch(
      /^svc;dur=[\d.]+, queue;dur=[\d.]+, service;dur=[\d.]+, hold;dur=[\d.]+$/,
    );
  });

  it('caps the output at 300 tokens and says so', async () => {
    const { s, auth } = await start();
    const dense = Array.from({ length: 40 }, (_, i) => `0${(i % 9) + 1}/1${i % 9}/2020`).join(' ');
    const reply = await postJson(s.url + API_PATHS.identification, { text: dense }, auth);
    expect(reply.status).toBe(200);
    expect(reply.json.truncated).toBe(true);
    expect(reply.json.usage.output_tokens).toBeLessThanOrEqual(300);
    expect(reply.json.entities.length).toBeLessThan(40);
  });

  it.each([
    {
      name: 'a missing text',
      body: { note: 'x' },
      status: 400,
      error: 'invalid_request',
      mention: 'text: expected a non-empty string, got nothing',
    },
    {
      name: 'a text that is not a string',
      body: { text: 42 },
      status: 400,
      error: 'invalid_request',
      mention: 'got 42',
    },
    { name: 'an empty text', body: { text: '' }, status: 400, error: 'invalid_request', mention: 'got ""' },
    { name: 'invalid JSON', body: '{"text": "abc', status: 400, error: 'invalid_json', mention: 'not valid JSON' },
    {
      name: 'a text over 1,024 model tokens',
      body: { text: 'a'.repeat(854) },
      status: 413,
      error: 'text_too_long',
      mention: 'about 1025 model tokens (854 characters × 1.2), over the limit of 1024',
    },
  ])('answers $status for $name', async ({ body, status, error, mention }) => {
    const { s, auth } = await start();
    const reply = await postJson(s.url + API_PATHS.identification, body, auth);
    expect(reply.status).toBe(status);
    expect(reply.json).toMatchObject({ error, error_description: expect.stringContaining(mention) });
  });

  it('accepts the longest text under the limit (853 characters)', async () => {
    const { s, auth } = await start();
    expect((await postJson(s.url + API_PATHS.identification, { text: 'a'.repeat(853) }, auth)).status).toBe(200);
  });

  it('answers 415 for a body not sent as JSON', async () => {
    const { s, auth } = await start();
    const reply = await call(s.url + API_PATHS.identification, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: NOTE,
    });
    expect(reply.status).toBe(415);
  });

  it('answers 429 with Retry-After from the bucket when the rate limit is spent, in model seconds', async () => {
    // 1 rpm with room for 1: after one request the next token is a whole model minute away.
    const clock = new ManualClock();
    const { s, auth } = await start({ clock, limits: { sustainedRpm: 1, burstRpm: 1 } });
    const url = s.url + API_PATHS.identification;
    expect((await postJson(url, { text: NOTE }, auth)).status).toBe(200);
    const first = await postJson(url, { text: NOTE }, auth);
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('60');
    expect(first.json).toMatchObject({ error: 'rate_limited', retry_after: 60 });
    clock.advanceTo(30_500); // half a token back: 29.5 s to go, rounded up
    expect((await postJson(url, { text: NOTE }, auth)).headers['retry-after']).toBe('30');
    clock.advanceTo(60_000);
    expect((await postJson(url, { text: NOTE }, auth)).status).toBe(200);
  });

  it('queues beyond max in flight, serves the queued request when the slot frees, and answers 429 when the queue is full', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({
      profile: 'nominal',
      clock,
      limits: { maxInFlight: 1, queueLimit: 1, timeoutS: 15 },
    });
    const url = s.url + API_PATHS.identification;
    const first = postJson(url, { text: NOTE }, auth);
    const second = postJson(url, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway).toMatchObject({ inFlight: 1, queued: 1 }), {
      timeout: 5000,
    });
    const third = await postJson(url, { text: NOTE }, auth);
    expect(third.status).toBe(429);
    expect(third.json.error).toBe('too_many_in_flight');
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Time stands still on the ManualClock until we move it; each request needs well under 5 s.
    clock.advanceTo(10_000);
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const queuedMs = (reply: typeof a): number =>
      Number(/queue;dur=([\d.]+)/.exec(String(reply.headers['server-timing']))![1]);
    expect(queuedMs(a)).toBe(0);
    expect(queuedMs(b)).toBeGreaterThan(100); // it waited for the first to finish
    expect(s.stats().requests.identification.byStatus).toEqual({ '200': 2, '429': 1 });
  });

  it('answers 504 at exactly the timeout when service takes longer', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({ profile: 'degraded', clock, limits: { timeoutS: 0.5 } });
    const pending = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    await vi.waitFor(() => expect(s.stats().identification.gateway.inFlight).toBe(1), { timeout: 5000 });
    clock.advanceTo(499);
    clock.advanceTo(500);
    const reply = await pending;
    expect(reply.status).toBe(504);
    expect(reply.json).toEqual({
      error: 'gateway_timeout',
      error_description: 'the request reached the service timeout of 0.5 s',
    });
  });
});

describe('POST obfuscation', () => {
  it('obfuscates the entities returned by identification', async () => {
    const { s, auth } = await start();
    const found = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    const reply = await postJson(s.url + API_PATHS.obfuscation, { text: NOTE, entities: found.json.entities }, auth);
    expect(reply.status).toBe(200);
    expect(reply.json.text).toBe('Patient [NAME] (MRN [MRN]), DOB [DATE]; phone [PHONE].');
    expect(reply.json.replacements).toHaveLength(4);
    expect(reply.text).not.toContain('John Smith');
  });

  it('answers 400 listing every problem', async () => {
    const { s, auth } = await start();
    const reply = await postJson(
      s.url + API_PATHS.obfuscation,
      { text: 'abc', entities: [{ type: 'NAME', start: 2, end: 9 }], style: 'x' },
      auth,
    );
    expect(reply.status).toBe(400);
    expect(reply.json.problems).toEqual([
      'style: expected one of tag, mask, got "x"',
      'entities[0].end: expected an integer in (start, text length], got 9',
    ]);
  });

  it('answers 413 over 100,000 characters', async () => {
    const { s, auth } = await start();
    const reply = await postJson(s.url + API_PATHS.obfuscation, { text: 'a'.repeat(100_001), entities: [] }, auth);
    expect(reply.status).toBe(413);
    expect(reply.json).toMatchObject({
      error: 'text_too_long',
      error_description: 'text: 100001 characters, over the limit of 100000',
    });
  });

  it('answers 413 payload_too_large for a body over its 1.5 MiB cap', async () => {
    const { s, auth } = await start();
    const reply = await postJson(
      s.url + API_PATHS.obfuscation,
      { text: 'a'.repeat(1.5 * 1024 * 1024), entities: [] },
      auth,
    );
    expect(reply.status).toBe(413);
    expect(reply.json).toMatchObject({ error: 'payload_too_large', max_bytes: 1.5 * 1024 * 1024 });
  });

  it('answers 401 without a token', async () => {
    const { s } = await start();
    expect((await postJson(s.url + API_PATHS.obfuscation, { text: 'a', entities: [] })).status).toBe(401);
  });
});

describe('faults (flaky)', () => {
  it('injects 500s and malformed JSON bodies at the configured rates, and counts them', async () => {
    const { s, auth } = await start({ faults: { http500Rate: 1 } });
    const failed = await postJson(s.url + API_PATHS.identification, { text: NOTE }, auth);
    expect(failed.status).toBe(500);
    await s.close();
    const other = await start({ faults: { malformedRate: 1 } });
    const malformed = await postJson(other.s.url + API_PATHS.identification, { text: NOTE }, other.auth);
    expect(malformed.status).toBe(200);
    expect(malformed.json).toBeUndefined();
    expect(other.s.stats().faults).toMatchObject({ malformed: 1, http500: 0 });
  });

  it('resets the connection without a response, and counts the reset', async () => {
    const { s, auth } = await start({ faults: { resetRate: 1 } });
    await expect(
      request(s.url + API_PATHS.identification, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ text: NOTE }),
      }),
    ).rejects.toThrow(/other side closed|socket|ECONNRESET/i);
    await vi.waitFor(() => expect(s.stats().requests.identification.resets).toBe(1), { timeout: 5000 });
    expect(s.stats().faults.reset).toBe(1);
  });

  it('delays a slow response by the configured model time', async () => {
    const clock = new ManualClock();
    const { s, auth } = await start({ clock, faults: { slowRate: 1, slowExtraMs: 6000 } });
    let done = false;
    const pending = postJson(s.url + API_PATHS.identification, { text: NOTE }, auth).finally(() => (done = true));
    await vi.waitFor(() => expect(s.stats().faults.slow).toBe(1), { timeout: 5000 });
    clock.advanceTo(5999);
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    clock.advanceTo(6000);
    expect((await pending).status).toBe(200);
  });
});

describe('GET /__mock/stats', () => {
  it('counts what it received and answered per endpoint and status, and reports its configuration', async () => {
    const { s, auth } = await start({ profile: 'nominal', timeScale: 50, seed: 9 });
    const url = s.url + API_PATHS.identification;
    const replies = await Promise.all([
      postJson(url, { text: NOTE }, auth),
      postJson(url, { text: NOTE }, auth),
      postJson(url, { text: '' }, auth),
      call(s.url + API_PATHS.session),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 400, 401]);
    const stats = (await call(s.url + STATS_PATH)).json;
    expect(stats).toMatchObject({
      profile: 'nominal',
      timeScale: 50,
      seed: 9,
      requests: {
        token: { received: 1, byStatus: { '200': 1 } },
        session: { received: 1, byStatus: { '401': 1 } },
        identification: { received: 3, byStatus: { '200': 2, '400': 1 }, resets: 0, clientGone: 0 },
        obfuscation: { received: 0 },
      },
      identification: {
        gateway: { inFlight: 0, queued: 0, admitted: 2, completed: 2 },
        fleet: { ready: 2, warming: 0 },
        limits: { rate: { sustainedRpm: 100, burstRpm: 200, burstMinutes: 5 }, maxInFlight: 128, timeoutMs: 15_000 },
        http429: 0,
        http504: 0,
      },
    });
    expect(stats.uptimeS).toBeGreaterThan(0);
  });
});
