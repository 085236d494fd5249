/**
 * A programmable stand-in for the API on loopback, for faults loadproof's mock does not model: a
 * service that answers 401 to everything, credentials revoked mid-run, a token endpoint that hangs.
 * It has no /__mock/stats, so loadproof treats it as a user's own stub: a mock at time scale 1.
 * Every request is counted; nothing listens beyond 127.0.0.1.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { API_PATHS } from '../../src/spec/index.js';

/** An answer: a status and a JSON body, after an optional delay (wall ms); 'hang' never answers. */
export type StubAnswer = { readonly status: number; readonly body?: unknown; readonly delayMs?: number } | 'hang';

export interface StubBehaviour {
  /** The answer to the n-th token call (1-based); default: a token that lasts an hour. */
  readonly token?: (n: number) => StubAnswer;
  /** The answer to the n-th identification request (1-based) and its bearer token; default: 200. */
  readonly identify?: (n: number, token: string) => StubAnswer;
}

export interface Stub {
  readonly url: string;
  readonly counts: {
    token: number;
    identification: number;
    other: number;
    connections: number;
    connectionsAtFirstIdentification: number | null;
  };
  close(): Promise<void>;
}

/** A token answer: `lpmock_at_` so the leak tests would find it; `expires_in` in seconds. */
export const tokenAnswer = (n: number, expiresInS = 3600): StubAnswer => ({
  status: 200,
  body: { access_token: `lpmock_at_stub_${n}_${'x'.repeat(24)}`, token_type: 'Bearer', expires_in: expiresInS },
});

export async function startStub(behaviour: StubBehaviour = {}): Promise<Stub> {
  const counts = {
    token: 0,
    identification: 0,
    other: 0,
    connections: 0,
    connectionsAtFirstIdentification: null as number | null,
  };
  const held = new Set<ServerResponse>();
  const answer = (res: ServerResponse, a: StubAnswer): void => {
    if (a === 'hang') {
      held.add(res);
      return;
    }
    const send = (): void => {
      if (res.destroyed) return;
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(a.body ?? { error: a.status === 200 ? undefined : 'stub_error' }));
    };
    if (a.delayMs === undefined) send();
    else setTimeout(send, a.delayMs).unref();
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (path === API_PATHS.token && req.method === 'POST') {
        counts.token++;
        answer(res, (behaviour.token ?? tokenAnswer)(counts.token));
      } else if (path === API_PATHS.identification && req.method === 'POST') {
        counts.identification++;
        // After this poll's other events: a connection accepted in the same turn as this request was there before it.
        if (counts.identification === 1)
          setImmediate(() => (counts.connectionsAtFirstIdentification = counts.connections));
        const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
        answer(res, behaviour.identify?.(counts.identification, token) ?? { status: 200, body: { entities: [] } });
      } else {
        counts.other++;
        answer(res, { status: 404, body: { error: 'not_found' } });
      }
    });
  };
  const server: Server = createServer(handle);
  server.on('connection', () => counts.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
