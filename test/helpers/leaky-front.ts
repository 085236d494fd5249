/**
 * A loopback front before loadproof's mock that forwards every request as it is and drops the entities of the kinds
 * asked from each identification answer: a service whose detector misses them, so the PHI of those kinds is left in
 * clear by the obfuscation that follows. Everything else (token, obfuscation, /__mock/stats, headers) passes through.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { API_PATHS } from '../../src/spec/index.js';

export interface LeakyFront {
  readonly url: string;
  /** Entities dropped so far. */
  readonly dropped: () => number;
  close(): Promise<void>;
}

export async function startLeakyFront(targetUrl: string, dropTypes: readonly string[]): Promise<LeakyFront> {
  const target = new URL(targetUrl);
  let dropped = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            let out = Buffer.concat(body);
            if (req.url === API_PATHS.identification && answer.statusCode === 200) {
              const parsed = JSON.parse(out.toString('utf8')) as { entities: { type: string }[] };
              const kept = parsed.entities.filter((e) => !dropTypes.includes(e.type));
              dropped += parsed.entities.length - kept.length;
              out = Buffer.from(JSON.stringify({ ...parsed, entities: kept }));
            }
            const headers = { ...answer.headers, 'content-length': String(out.length) };
            delete headers['transfer-encoding'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(out);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropped: () => dropped,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
