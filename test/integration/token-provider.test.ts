/** The client's token provider against the real mock: caching, renewal, 401 retry, and failures in words. */
import { type AddressInfo, createServer } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { TokenProvider, type TokenSettings } from '../../src/client/token.js';
import { ManualClock } from '../../src/core/clock.js';
import { LoadproofError } from '../../src/core/errors.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(overrides: Partial<TokenSettings> = {}, tokenTtlS = 3600) {
  server = await startMockServer({ profile: 'zero', tokenTtlS, clientSecret: 'a-distinctive-secret-42' });
  const clock = new ManualClock();
  const fetches: (number | 'failed')[] = [];
  const provider = new TokenProvider({
    permit: LOOPBACK_PERMIT,
    baseUrl: server.url,
    audience: server.audience,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    credentialSource: '$LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET',
    clock,
    timeoutMs: 5000,
    onFetch: (_ms, status) => fetches.push(status),
    ...overrides,
  });
  return { s: server, provider, clock, fetches };
}

async function failureOf(promise: Promise<unknown>): Promise<LoadproofError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof LoadproofError)) throw new Error(`expected a LoadproofError, got ${String(error)}`);
  return error;
}

describe('TokenProvider', () => {
  it('fetches once and shares the token between concurrent callers', async () => {
    const { s, provider, fetches } = await setup();
    const tokens = await Promise.all([provider.get(), provider.get(), provider.get()]);
    expect(new Set(tokens).size).toBe(1);
    expect(await provider.get()).toBe(tokens[0]);
    expect(s.stats().requests.token.byStatus).toEqual({ '200': 1 });
    expect(fetches).toEqual([200]);
  });

  it('renews at 90 % of the lifetime (model time), not before, serving the old token while it renews', async () => {
    const { s, provider, clock } = await setup({}, 100);
    const first = await provider.get();
    clock.advanceTo(89_999);
    expect(await provider.get()).toBe(first);
    expect(provider.fetchCount).toBe(1);
    clock.advanceTo(90_000);
    expect(await provider.get()).toBe(first);
    let next = first;
    for (let i = 0; i < 500 && next === first; i++) {
      await new Promise((r) => setTimeout(r, 2));
      next = await provider.get();
    }
    expect(next).not.toBe(first);
    expect(s.stats().requests.token.received).toBe(2);
  });

  it('hands the token in hand at once (current) only while get() would return it without waiting or renewing', async () => {
    const { provider, clock } = await setup({}, 100);
    expect(provider.current()).toBeUndefined();
    const first = await provider.get();
    expect(provider.current()).toBe(first);
    clock.advanceTo(89_999);
    expect(provider.current()).toBe(first);
    // From 90 % of its lifetime get() starts the renewal: current() leaves that to it.
    clock.advanceTo(90_000);
    expect(provider.current()).toBeUndefined();
    expect(await provider.get()).toBe(first);
    provider.rejected(first);
    expect(provider.current()).toBeUndefined();
  });

  it('fetches a new token after a 401 on the one it gave, once however many requests saw the 401', async () => {
    const { provider } = await setup();
    const first = await provider.get();
    provider.rejected(first);
    provider.rejected(first);
    const second = await provider.get();
    expect(second).not.toBe(first);
    expect(provider.fetchCount).toBe(2);
  });

  it('ends the run when two tokens in a row are rejected before either was accepted (a service that 401s everything)', async () => {
    const fatal: string[] = [];
    const { provider } = await setup({ onFatal: (f) => fatal.push(f.code) });
    provider.rejected(await provider.get());
    provider.rejected(await provider.get());
    expect(fatal).toEqual(['AUTH_FAILED']);
    const error = await failureOf(provider.get());
    expect(error.message).toContain('the service rejected two access tokens in a row with 401');
    expect(provider.fetchCount).toBe(2);
  });

  it('renews after a 401 on a token the service had accepted (an expiry), but ends the run when that keeps happening', async () => {
    // A service that rejects every other request: each token is accepted once, then rejected.
    const fatal: string[] = [];
    const { provider, clock } = await setup({ onFatal: (f) => fatal.push(f.message) });
    for (let i = 0; i < 3; i++) {
      clock.advanceBy(10_000);
      const token = await provider.get();
      provider.accepted(token);
      provider.rejected(token);
    }
    expect(fatal).toEqual([]);
    expect(provider.fetchCount).toBe(3);
    clock.advanceBy(10_000);
    const token = await provider.get();
    provider.accepted(token);
    provider.rejected(token);
    // The fourth rejection within 5 minutes (model time): no fifth token call, the run ends.
    expect(fatal).toEqual([expect.stringContaining('the service rejected 4 access tokens with 401 within 5 minutes')]);
    await failureOf(provider.get());
    expect(provider.fetchCount).toBe(4);
  });

  it('renews again after rejections spread over more than 5 minutes: an occasional expiry is not a refusal', async () => {
    const fatal: string[] = [];
    const { provider, clock } = await setup({ onFatal: (f) => fatal.push(f.code) });
    for (let i = 0; i < 6; i++) {
      clock.advanceBy(120_000);
      const token = await provider.get();
      provider.accepted(token);
      provider.rejected(token);
    }
    expect(fatal).toEqual([]);
  });

  it('stops every wait and renewal when closed, so nothing keeps the process alive after a run', async () => {
    const { s, provider, clock } = await setup({}, 100);
    await provider.get();
    await s.close();
    clock.advanceTo(100_000);
    const waiting = failureOf(provider.get());
    await new Promise((r) => setTimeout(r, 20));
    provider.close();
    expect((await waiting).code).toBe('INTERRUPTED');
  });

  it('trusts a lifetime of at least 30 s: expires_in 0.001 cannot make a token call per request', async () => {
    const warnings: string[] = [];
    const { provider, clock } = await setup({ onWarning: (w) => warnings.push(w) }, 0.001);
    for (let t = 0; t <= 100_000; t += 100) {
      clock.advanceTo(t);
      await provider.get();
    }
    // 100 s of model time, one renewal at most every 27 s: the first call and 3 renewals.
    expect(provider.fetchCount).toBe(4);
    expect(warnings).toEqual([
      expect.stringContaining('the token endpoint says tokens last 0.001 s; loadproof renews at most once per 27 s'),
    ]);
  });

  it('ends the run when the token endpoint refuses the credentials mid-run (401 on a renewal)', async () => {
    const fatal: string[] = [];
    const { s, provider, clock } = await setup({ onFatal: (f) => fatal.push(f.message) }, 100);
    await provider.get();
    // The credentials are revoked: the same address now serves a mock that knows another secret.
    const port = Number(new URL(s.url).port);
    await s.close();
    server = await startMockServer({ profile: 'zero', port, clientSecret: 'another-secret-entirely' });
    clock.advanceTo(100_001);
    const error = await failureOf(provider.get());
    expect(error.code).toBe('AUTH_FAILED');
    expect(fatal).toEqual([
      expect.stringMatching(
        /^cannot renew the access token mid-run: cannot authenticate: the client_id or client_secret is wrong \(401 Unauthorized\).* The run was stopped\.$/,
      ),
    ]);
    expect(provider.fetchCount).toBe(2);
  });

  it('retries a failing renewal with back-off while the old token serves, and ends the run only when none is left', async () => {
    const fatal: string[] = [];
    const { s, provider, clock } = await setup({ onFatal: (f) => fatal.push(f.code) }, 100);
    const token = await provider.get();
    await s.close();
    // From 90 s the provider renews in the background; the token stays in use until 100 s.
    for (let t = 90_000; t < 100_000; t += 250) {
      clock.advanceTo(t);
      expect(await provider.get()).toBe(token);
      await new Promise((r) => setTimeout(r, 1));
    }
    const backgroundCalls = provider.fetchCount - 1;
    // Back-off of 1, 2, 4 s: a handful of calls in those 10 s, not one per request.
    expect(backgroundCalls).toBeGreaterThanOrEqual(1);
    expect(backgroundCalls).toBeLessThanOrEqual(4);
    expect(fatal).toEqual([]);
    // No usable token left: the provider keeps trying, with back-off, and then gives up.
    clock.advanceTo(100_000);
    const waiting = failureOf(provider.get());
    // Bounded by the model time it may take (5 attempts, back-off 1–16 s), not by this machine's speed.
    for (let t = 100_000; fatal.length === 0 && t <= 100_000 + 3_600_000; t += 500) {
      clock.advanceTo(t);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect((await waiting).code).toBe('TARGET_UNREACHABLE');
    expect(fatal).toEqual(['TARGET_UNREACHABLE']);
    expect(provider.fetchCount).toBeLessThanOrEqual(1 + 4 + 5);
  });

  it('gives up a token call in progress at once when the run is stopped', async () => {
    // A server that accepts the connection and never answers.
    const silent = createServer((socket) => socket.on('error', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const stop = new AbortController();
    try {
      const { provider } = await setup({
        baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        timeoutMs: 60_000,
        signal: stop.signal,
      });
      const pending = failureOf(provider.get());
      setTimeout(() => stop.abort(), 50);
      expect((await pending).code).toBe('INTERRUPTED');
    } finally {
      silent.close();
    }
  });

  it('explains a 401 in words, names where the credentials came from, and never shows the secret', async () => {
    const { provider } = await setup({ clientSecret: 'wrong-but-distinctive-secret' });
    const error = await failureOf(provider.get());
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain(
      'the client_id or client_secret is wrong (401 Unauthorized); they came from $LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET',
    );
    expect(error.message).not.toContain('wrong-but-distinctive-secret');
    expect(error.message).not.toContain('a-distinctive-secret-42');
  });

  it('explains a 403 as the audience', async () => {
    const { provider } = await setup({ audience: 'https://elsewhere.example' });
    const error = await failureOf(provider.get());
    expect(error.message).toContain(
      'the audience "https://elsewhere.example" is missing or not this service\'s (403 Forbidden)',
    );
  });

  it('says the target is unreachable when nothing listens', async () => {
    const { s, provider } = await setup();
    await s.close();
    const error = await failureOf(provider.get());
    expect(error.code).toBe('TARGET_UNREACHABLE');
    expect(error.message).toMatch(
      /cannot get a token from http:\/\/127\.0\.0\.1:\d+\/oauth\/token: refused \(ECONNREFUSED\)/,
    );
  });
});
