/**
 * A stand-in for the API on loopback whose identification requests fail in chosen ways, by their x-loadproof-seq:
 * an answer with a body of any bytes, a reset mid-answer, or no answer at all. For the "top errors" tests. It has no
 * /__mock/stats, so loadproof takes it as a user's own stub (time scale 1). Nothing listens beyond 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { API_PATHS } from '../../src/spec/index.js';

/** An answer: a status and its body as bytes; 'reset' closes mid-answer; 'hang' never answers. */
export type ErrorAnswer = { readonly status: number; readonly body: string | Buffer } | 'reset' | 'hang';

export interface ErrorServer {
  readonly url: string;
  /** Every access token issued. */
  readonly issued: string[];
  close(): Promise<void>;
}

/** `answer(seq, token)`: the answer to identification request `seq`, which carried `token`. */
export async function startErrorServer(answer: (seq: number, token: string) => ErrorAnswer): Promise<ErrorServer> {
  const issued: string[] = [];
  const held = new Set<ServerResponse>();
  const reply = (res: ServerResponse, a: ErrorAnswer): void => {
    if (a === 'hang') {
      held.add(res);
      return;
    }
    if (a === 'reset') {
      // Part of an answer, then the connection dropped: a reset, not a stale connection.
      res.socket?.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"ent');
      res.socket?.destroy();
      return;
    }
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(a.body);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (path === API_PATHS.token && req.method === 'POST') {
        const token = `lpstub_at_${randomBytes(24).toString('base64url')}`;
        issued.push(token);
        reply(res, {
          status: 200,
          body: JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }),
        });
      } else if (path === API_PATHS.identification && req.method === 'POST') {
        const token = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
        reply(res, answer(Number(req.headers['x-loadproof-seq']), token));
      } else reply(res, { status: 404, body: '{"error":"not_found"}' });
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
