/** Connections opened ahead of the load, through undici to a real server on loopback. */
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { WarmConnections } from '../../src/client/warm-connections.js';
import { type Stub, startStub } from '../helpers/stub.js';

let stub: Stub | undefined;
let agent: Agent | undefined;
let warm: WarmConnections | undefined;
afterEach(async () => {
  warm?.close();
  await agent?.close();
  await stub?.close();
});

describe('WarmConnections', () => {
  it('opens the connections before any request, and every request sent on one is answered', async () => {
    stub = await startStub();
    warm = new WarmConnections(stub.url);
    agent = new Agent({ connections: 20, pipelining: 1, connect: warm.connect });
    expect(await warm.open(8, 5000)).toBe(8);
    // 8 at once: each takes a warm connection (no new one is made). Bounded: a request stuck on its socket times out.
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(`${stub!.url}/entityextraction/pipelines/vendor-phi-identification`, { method: 'POST', body: '{}', dispatcher: agent!, signal: AbortSignal.timeout(2000) }).then(
          async (r) => (await r.body.text(), r.statusCode),
          (e: Error) => e.name,
        ),
      ),
    );
    expect(statuses).toEqual(Array(8).fill(200));
    expect(stub.counts.connections).toBe(8);
    expect(stub.counts.identification).toBe(8);
  });
});
