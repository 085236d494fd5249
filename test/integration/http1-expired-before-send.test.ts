/**
 * A request whose deadline passed while it waited for a connection must never be written to the
 * target: the client already counts it a timeout, and a late send still reaches the service (and
 * spends its rate limit). Since deadlines are declared in a setImmediate after the sweep (2ef186a),
 * a connection that becomes ready in the poll phase between the sweep and that immediate took the
 * expired request from the waiting queue and wrote it, and only then was it aborted.
 * The order is forced, not timed: this thread blocks right after the connect is issued, until the
 * server (in a worker thread) has accepted the connection and the deadline is long past.
 */
import { Worker } from 'node:worker_threads';

import { afterEach, describe, expect, it } from 'vitest';

import { ConnectionPool } from '../../src/client/http1/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';
import { stopServerThread } from '../helpers/servers.js';

// state[0]: 1 = connection accepted; state[1]: request bytes the server read; state[2]: 1 = its connection closed.
const SERVER = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.sab);
const server = net.createServer((socket) => {
  Atomics.store(state, 0, 1);
  socket.on('data', (d) => Atomics.add(state, 1, d.length));
  socket.on('error', () => {});
  socket.on('close', () => Atomics.store(state, 2, 1));
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', () => server.close(() => process.exit(0)));
`;

let worker: Worker | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  pool = undefined;
  const w = worker;
  worker = undefined;
  if (w !== undefined) await stopServerThread(w);
});

describe('ConnectionPool: a request expired while waiting for a connection', () => {
  it('is never sent, though the connection becomes ready before its deadline is declared', async () => {
    const sab = new SharedArrayBuffer(12);
    const state = new Int32Array(sab);
    worker = new Worker(SERVER, { eval: true, workerData: { sab } });
    const port = await new Promise<number>((resolve) => worker!.once('message', resolve));
    const p = (pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, `http://127.0.0.1:${port}`, 1));
    const bytes = `POST /x HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 2\r\n\r\n{}`;
    let sent = false;
    const outcome = await new Promise<string>((resolve) => {
      setImmediate(() => {
        const startedAt = performance.now();
        p.request(
          bytes,
          50,
          () => (sent = true),
          (error, response) =>
            resolve(response !== undefined ? `answered ${response.status}` : String((error as { code?: string }).code)),
        );
        // After net's own nextTick (which issues the connect): the stall.
        process.nextTick(() => {
          const limit = performance.now() + 10_000;
          while ((Atomics.load(state, 0) < 1 || performance.now() < startedAt + 200) && performance.now() < limit) {
            // busy: the connection is made meanwhile, and the deadline passes
          }
        });
      });
    });
    expect(outcome).toBe('LOADPROOF_DEADLINE');
    // Close whatever is open, and wait (bounded) until the server has seen its connection end.
    p.close();
    const limit = performance.now() + 10_000;
    while (Atomics.load(state, 2) < 1 && performance.now() < limit) await new Promise((r) => setTimeout(r, 5));
    expect(Atomics.load(state, 2)).toBe(1);
    expect({ sent, bytesTheServerRead: Atomics.load(state, 1) }).toEqual({ sent: false, bytesTheServerRead: 0 });
  });
});
