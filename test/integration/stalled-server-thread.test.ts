/**
 * A server in a worker thread (as the embedded mock runs) whose event loop is held up while a request waits:
 * the stall is the tool's, not the service's. A stretchable deadline (what a time-scaled attempt against the mock
 * is given: src/client/attempt-deadline.ts) waits it out, reading the thread's stalls from shared memory; a plain
 * one times the answer out, as every attempt at k > 1 did before (a busy machine: beside a CPU hog, a run at
 * k = 60 stopped TARGET_UNREACHABLE). The stall is a busy loop in the thread, so it holds on any machine.
 */
import { type AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';

import { afterEach, describe, expect, it } from 'vitest';

import { ConnectionPool, type Http1Response, type WallDeadline } from '../../src/client/http1/index.js';
import { newStallCells, type StallCells, stalledMs } from '../../src/core/index.js';
import { LOOPBACK_PERMIT } from '../helpers/permit.js';

const STALL_MS = 1500;

/**
 * The thread: ticks the real meter (from dist/, as the mock's worker does) and answers each request after a busy
 * loop of `stallMs` — its loop held up, as a starved thread's is.
 */
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
import(workerData.meterUrl).then(({ StallMeter }) => {
  new StallMeter(workerData.cells).start();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const until = Date.now() + workerData.stallMs;
      while (Date.now() < until) {}
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
  parentPort.on('message', () => server.close(() => process.exit(0)));
});
`;

let worker: Worker | undefined;
let pool: ConnectionPool | undefined;
afterEach(async () => {
  pool?.close();
  pool = undefined;
  await worker?.terminate();
  worker = undefined;
});

async function startStallingThread(cells: StallCells): Promise<string> {
  const meterUrl = new URL('../../dist/core/stall-meter.js', import.meta.url).href;
  worker = new Worker(THREAD, { eval: true, workerData: { cells, stallMs: STALL_MS, meterUrl } });
  const port = await new Promise<AddressInfo['port']>((resolve, reject) => {
    worker!.once('message', resolve);
    worker!.once('error', reject);
  });
  return `http://127.0.0.1:${port}`;
}

function send(p: ConnectionPool, host: string, deadline: WallDeadline): Promise<Http1Response | string> {
  const bytes = `POST /x HTTP/1.1\r\nhost: ${host}\r\ncontent-length: 2\r\n\r\n{}`;
  return new Promise((resolve) =>
    p.request(
      bytes,
      deadline,
      () => {},
      (error, response) => resolve(response ?? String((error as { code?: string }).code)),
    ),
  );
}

describe("a server thread held up while a request waits (the tool's own stall)", () => {
  it('a stretchable deadline waits the stall out: the answer comes, no timeout', async () => {
    const cells = newStallCells();
    const url = await startStallingThread(cells);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, url, 1, { stalledMs: () => stalledMs(cells) });
    const answer = await send(pool, new URL(url).host, { waitMs: 200, latestMs: 30_000 });
    expect(answer).toMatchObject({ status: 200 });
    expect(stalledMs(cells)).toBeGreaterThan(STALL_MS / 2);
  });

  it('a plain deadline times the answer out: what every time-scaled attempt got before', async () => {
    const cells = newStallCells();
    const url = await startStallingThread(cells);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, url, 1, { stalledMs: () => stalledMs(cells) });
    expect(await send(pool, new URL(url).host, { waitMs: 200 })).toBe('LOADPROOF_DEADLINE');
  });

  it('a stretchable deadline is never stretched past its latest, however long the stall', async () => {
    const cells = newStallCells();
    const url = await startStallingThread(cells);
    pool = ConnectionPool.forUrl(LOOPBACK_PERMIT, url, 1, { stalledMs: () => stalledMs(cells) });
    expect(await send(pool, new URL(url).host, { waitMs: 100, latestMs: 300 })).toBe('LOADPROOF_DEADLINE');
  });
});
