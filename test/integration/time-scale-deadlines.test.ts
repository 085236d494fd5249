/**
 * `--time-scale 3` (and 6, 7, 9, 11–15) once exited 4 with ERR_OUT_OF_RANGE: a wall deadline of
 * timeout ÷ k is not an integer, and AbortSignal.timeout takes integers only. Every deadline the run
 * derives from k goes through the real client against the real mock here, for k = 1 … 20.
 */
import { afterEach, describe, expect, it } from 'vitest';

import { createIdentify } from '../../src/client/api.js';
import { ConnectionPool } from '../../src/client/http1/index.js';
import { TokenProvider } from '../../src/client/token.js';
import { ScaledClock } from '../../src/core/clock.js';
import { createRng } from '../../src/core/rng.js';
import { type MockServer, startMockServer } from '../../src/mock/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

let server: MockServer | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  await server?.close();
});

describe('deadlines at every time scale', () => {
  it('gets a token and an answer at k = 1 … 20 with the default 16 s timeout (16000 / k ms is mostly not an integer)', async () => {
    server = await startMockServer({ profile: 'zero' });
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, server.url, 4);
    const outcomes: string[] = [];
    for (let k = 1; k <= 20; k++) {
      const clock = new ScaledClock(k);
      // As the run does (src/run/measuring.ts): the token call's wall deadline is max(1 s, timeout ÷ k).
      const tokens = new TokenProvider({
        permit: LOOPBACK_PERMIT,
        baseUrl: server.url,
        audience: server.audience,
        clientId: server.clientId,
        clientSecret: server.clientSecret,
        credentialSource: 'test',
        clock,
        timeoutMs: Math.max(1000, 16_000 / k),
      });
      const identify = createIdentify({
        baseUrl: server.url,
        pool,
        tokens,
        clock,
        timeScale: k,
        timeoutMs: 16_000,
        on429: { policy: 'record', maxAttempts: 1, baseDelayMs: 1000, maxDelayMs: 1000 },
        rng: createRng(k),
      });
      const r = await identify('Patient John Smith, DOB 04/12/1961.', k);
      outcomes.push(`${k}:${r?.outcome}`);
      tokens.close();
    }
    expect(outcomes).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}:ok`));
  });
});
