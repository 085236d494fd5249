/**
 * The scrape endpoint of `run --metrics-port`: GET /metrics on a loopback address by default (another
 * host only when asked, for a scraper in a cluster), answered in the format the scraper asks for.
 * A port that cannot be listened on is a usage error before anything is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { UsageError } from '../../core/index.js';
import { CONTENT_TYPES, exposition, type Family, negotiate } from './exposition.js';
import { type Exposure, exposureOf } from './listen.js';

interface MetricsServer {
  readonly url: string;
  /** Who can reach it, from the address actually bound (not from how the host was spelled). */
  readonly exposure: Exposure;
  close(): Promise<void>;
}

export async function startMetricsServer(
  host: string,
  port: number,
  families: () => readonly Family[],
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /metrics\n');
      return;
    }
    const format = negotiate(req.headers.accept);
    const body = exposition(families(), format);
    res.writeHead(200, { 'content-type': CONTENT_TYPES[format], 'content-length': Buffer.byteLength(body) }).end(body);
  });
  // A scraper's idle keep-alive connection must not hold the run's process open at its end.
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          `--metrics-port ${port}: cannot listen on ${host} (${error.code ?? error.message})`,
          'choose another port, or 0 for a free one; nothing was sent',
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/metrics`,
    exposure: exposureOf(address.address),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
