/**
 * A network path with a round trip of 2 × `oneWayMs` between loadproof and a gateway, on loopback: every byte, and
 * every close, reaches the other side `oneWayMs` later, as over a real network. A request written to a
 * connection whose server has closed it (its FIN still on the way) reaches a closed socket and is answered by a
 * reset, as the kernel would: the server never sees it. On bare loopback that race is a fraction of a millisecond
 * wide; over this path it is the round trip.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface DelayLine {
  readonly port: number;
  close(): Promise<void>;
}

export async function startDelayLine(targetPort: number, oneWayMs: number): Promise<DelayLine> {
  const sockets = new Set<Socket>();
  const later = (fn: () => void): void => void setTimeout(fn, oneWayMs);
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort, allowHalfOpen: true });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    let upstreamGone = false;
    // The client's bytes reach the server a moment later, unless it has closed its end: then a reset comes back.
    client.on('data', (chunk) =>
      later(() => {
        if (!upstreamGone) upstream.write(chunk);
        else later(() => client.resetAndDestroy());
      }),
    );
    client.on('end', () => later(() => upstream.end()));
    upstream.on('data', (chunk) => later(() => client.write(chunk)));
    upstream.on('end', () => {
      upstreamGone = true;
      later(() => client.end());
    });
    upstream.on('close', () => {
      upstreamGone = true;
      later(() => client.destroySoon());
    });
    client.on('close', () => later(() => upstream.destroy()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
