/**
 * What the server records per request through its response object (MockResponse): the request log's
 * status, Retry-After and client headers, Server-Timing on a pipeline answer that never reached the
 * service, and the counts by status. Over real HTTP on loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { API_PATHS } from '../spec/index.js';
import { type MockServer, startMockServer } from './server.js';

const servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function token(s: MockServer): Promise<string> {
  const res = await fetch(s.url + API_PATHS.token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: s.clientId,
      client_secret: s.clientSecret,
      audience: s.audience,
      grant_type: 'client_credentials',
    }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('MockResponse bookkeeping', () => {
  it('logs status, Retry-After and the client headers, stamps Server-Timing on an early 401, and counts by status', async () => {
    // One request per minute, no burst: the second is a 429 with Retry-After.
    const s = await startMockServer({ profile: 'zero', limits: { sustainedRpm: 1, burstRpm: 1, burstMinutes: 1 } });
    servers.push(s);
    const auth = `Bearer ${await token(s)}`;
    const identify = (headers: Record<string, string>) =>
      fetch(s.url + API_PATHS.identification, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ text: 'Seen by Dr. Okafor.' }),
      });

    const ok = await identify({ authorization: auth, 'x-loadproof-seq': '1', 'x-loadproof-attempt': '1' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ entities: [{ type: 'NAME', text: 'Dr. Okafor' }], truncated: false });
    const limited = await identify({ authorization: auth, 'x-loadproof-seq': '2' });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    await limited.text();
    const unauthorised = await identify({});
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('server-timing')).toBe('svc;dur=0.000');
    await unauthorised.text();

    const log = (await (await fetch(`${s.url}/__mock/log`)).json()) as {
      entries: Array<Record<string, unknown>>;
      droppedOldest: number;
    };
    expect(log.droppedOldest).toBe(0);
    expect(
      log.entries.map(({ endpoint, status, retryAfterS, seq, attempt }) => ({
        endpoint,
        status,
        retryAfterS,
        seq,
        attempt,
      })),
    ).toEqual([
      { endpoint: 'identification', status: 200, retryAfterS: null, seq: 1, attempt: 1 },
      { endpoint: 'identification', status: 429, retryAfterS: retryAfter, seq: 2, attempt: null },
      { endpoint: 'identification', status: 401, retryAfterS: null, seq: null, attempt: null },
    ]);
    for (const e of log.entries) expect(e.answeredAtMs as number).toBeGreaterThanOrEqual(e.arrivedAtMs as number);
    expect(s.stats().requests.identification).toEqual({
      received: 3,
      byStatus: { '200': 1, '401': 1, '429': 1 },
      resets: 0,
      clientGone: 0,
    });
  });
});
