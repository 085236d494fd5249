/** The client's token provider against the real mock: caching, renewal, 401 retry, and failures in words. */
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { TokenProvider, type TokenSettings } from '../../src/client/token.js';
import { ManualClock } from '../../src/core/clock.js';
import { LoadproofError } from '../../src/core/errors.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';

let server: MockServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  server = undefined;
  agent = undefined;
});

async function setup(overrides: Partial<TokenSettings> = {}, tokenTtlS = 3600) {
  server = await startMockServer({ profile: 'zero', tokenTtlS, clientSecret: 'a-distinctive-secret-42' });
  agent = new Agent();
  const clock = new ManualClock();
  const fetches: (number | 'failed')[] = [];
  const provider = new TokenProvider({
    baseUrl: server.url,
    audience: server.audience,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    credentialSource: '$LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET',
    dispatcher: agent,
    clock,
    timeoutMs: 5000,
    onFetch: (_ms, status) => fetches.push(status),
    ...overrides,
  });
  return { s: server, provider, clock, fetches };
}

async function failureOf(promise: Promise<unknown>): Promise<LoadproofError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
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

  it('renews at 90 % of the lifetime (model time), and not before', async () => {
    const { s, provider, clock } = await setup({}, 100);
    const first = await provider.get();
    clock.advanceTo(89_999);
    expect(await provider.get()).toBe(first);
    clock.advanceTo(90_000);
    expect(await provider.get()).not.toBe(first);
    expect(s.stats().requests.token.received).toBe(2);
  });

  it('fetches a new token after invalidate (a 401), once', async () => {
    const { provider } = await setup();
    const first = await provider.get();
    provider.invalidate(first);
    provider.invalidate(first);
    const second = await provider.get();
    expect(second).not.toBe(first);
    expect(provider.fetchCount).toBe(2);
  });

  it('explains a 401 in words, names where the credentials came from, and never shows the secret', async () => {
    const { provider } = await setup({ clientSecret: 'wrong-but-distinctive-secret' });
    const error = await failureOf(provider.get());
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.exitCode).toBe(4);
    expect(error.message).toContain('the client_id or client_secret is wrong (401 Unauthorized); they came from $LOADPROOF_CLIENT_ID / $LOADPROOF_CLIENT_SECRET');
    expect(error.message).not.toContain('wrong-but-distinctive-secret');
    expect(error.message).not.toContain('a-distinctive-secret-42');
  });

  it('explains a 403 as the audience', async () => {
    const { provider } = await setup({ audience: 'https://elsewhere.example' });
    const error = await failureOf(provider.get());
    expect(error.message).toContain('the audience "https://elsewhere.example" is missing or not this service\'s (403 Forbidden)');
  });

  it('says the target is unreachable when nothing listens', async () => {
    const { s, provider } = await setup();
    await s.close();
    const error = await failureOf(provider.get());
    expect(error.code).toBe('TARGET_UNREACHABLE');
    expect(error.message).toMatch(/cannot get a token from http:\/\/127\.0\.0\.1:\d+\/oauth\/token: refused \(ECONNREFUSED\)/);
  });
});
