/**
 * What the server does with each request: finds its route (404, 405), stamps when it enters the model,
 * counts it, runs the route's handler, and when the response closes counts and logs it. CONNECT is refused.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import { describeValue, monotonicMs } from '../core/index.js';
import { DUE_HEADER } from '../spec/index.js';
import { sendError } from './http.js';
import type { ModelClock } from './model-clock.js';
import type { MockResponse } from './response.js';
import type { MockContext } from './routes/context.js';
import { allowedMethods, allowsMethod, findRoute } from './routes/table.js';

/** The methods the mock takes on some route, for a CONNECT's Allow. */
const CONNECT_ALLOW = 'GET, HEAD, POST';

/**
 * Wall ms after which a due time is not taken: not a delay of this machine's client (another host's clock, a stale
 * header).
 */
const MAX_DUE_AGE_WALL_MS = 60_000;

/** The server's request listener; `modelClock` when the model runs on the real clock (not a test's ManualClock). */
export function createRequestHandler(
  ctx: MockContext,
  modelClock: ModelClock | undefined,
): (req: IncomingMessage, res: MockResponse) => void {
  const onResponseClose = responseCloser(ctx);
  return (req, res) => handleRequest(ctx, modelClock, onResponseClose, req, res);
}

function handleRequest(
  ctx: MockContext,
  modelClock: ModelClock | undefined,
  onResponseClose: (this: MockResponse) => void,
  req: IncomingMessage,
  res: MockResponse,
): void {
  const path = pathOf(req.url ?? '/');
  const route = findRoute(path);
  const allowed = route !== undefined && allowsMethod(route, req.method);
  // The mock's own routes are not counted, so the counts reconcile with a client's; 404s and 405s are 'other'.
  const endpoint = allowed ? route.endpoint : 'other';
  res.clock = ctx.clock;
  res.endpoint = endpoint;
  res.pipeline = endpoint === 'identification' || endpoint === 'obfuscation';
  res.maxBodyBytes = allowed ? route.maxBodyBytes : 0;
  res.on('close', onResponseClose);
  if (endpoint !== null) {
    arrive(ctx, modelClock, req, res);
    ctx.counters.received(endpoint);
  }
  if (route === undefined) {
    sendError(res, 404, 'not_found', `no endpoint at ${path}`);
  } else if (!allowed) {
    sendError(res, 405, 'method_not_allowed', `${path} takes ${allowedMethods(route)}, got ${String(req.method)}`, {
      allow: allowedMethods(route),
    });
  } else {
    // Not an async wrapper: most handlers answer synchronously or return their one promise.
    try {
      route.handler(req, res, ctx)?.catch((error: unknown) => failed(res, error));
    } catch (error) {
      failed(res, error);
    }
  }
}

/**
 * When a response closes, whichever way: gives its body lease back, counts it under its endpoint
 * (answered, reset or client gone), and logs the pipelines' requests. One function for every
 * response of a server (`this` is the response), not a closure per request.
 */
function responseCloser(ctx: MockContext): (this: MockResponse) => void {
  const { counters, requestLog, clock } = ctx;
  return function onResponseClose(this: MockResponse): void {
    this.lease?.release();
    const endpoint = this.endpoint;
    if (endpoint === null) return;
    const finished = this.writableFinished;
    if (finished) counters.answered(endpoint, this.statusCode);
    else if (this.reset) counters.reset(endpoint);
    else counters.gone(endpoint);
    if (endpoint === 'identification' || endpoint === 'obfuscation') {
      const headers = this.req.headers;
      requestLog.add({
        endpoint,
        arrivedAtMs: this.arrivedAtMs,
        answeredAtMs: this.answeredAtMs ?? clock.nowMs(),
        status: finished ? this.statusCode : null,
        retryAfterS: this.retryAfterS,
        seq: headerNumber(headers['x-loadproof-seq']),
        attempt: headerNumber(headers['x-loadproof-attempt']),
      });
    }
  };
}

function failed(res: MockResponse, error: unknown): void {
  sendError(res, 500, 'internal_error', 'the mock failed to handle the request');
  process.emitWarning(`loadproof mock: handler failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * When a request enters the model: at its due time when the client says it (DUE_HEADER) and the model runs behind, else
 * now.
 */
// Only a client on this machine shares its monotonic clock; a due time over a minute old is not one of its own.
function arrive(ctx: MockContext, modelClock: ModelClock | undefined, req: IncomingMessage, res: MockResponse): void {
  const due = req.headers[DUE_HEADER];
  const dueMs =
    modelClock === undefined ||
    ctx.modelLagMs === 0 ||
    typeof due !== 'string' ||
    !isLoopbackPeer(req.socket.remoteAddress)
      ? Number.NaN
      : Number(due);
  const arrival =
    Number.isFinite(dueMs) && monotonicMs() - dueMs < MAX_DUE_AGE_WALL_MS ? modelClock!.arrival(dueMs) : undefined;
  if (arrival === undefined || arrival.late) {
    res.arrivedAtMs = ctx.clock.nowMs();
    res.dueAtMs = res.arrivedAtMs;
    res.entryMs = 0;
    res.lagMs = 0;
    return;
  }
  res.arrivedAtMs = arrival.atMs;
  res.dueAtMs = arrival.dueAtMs;
  res.entryMs = arrival.entryMs;
  res.lagMs = ctx.modelLagMs;
}

/** CONNECT asks for a tunnel, which the mock never gives: 405 with Allow, then close. */
export function refuseConnect(ctx: MockContext, req: IncomingMessage, socket: Duplex): void {
  ctx.counters.received('other');
  const body = JSON.stringify({
    error: 'method_not_allowed',
    error_description: `CONNECT ${describeValue(req.url)}: the mock opens no tunnels; it takes ${CONNECT_ALLOW}`,
  });
  socket.on('error', () => undefined);
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nallow: ${CONNECT_ALLOW}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
  ctx.counters.answered('other', 405);
}

function headerNumber(value: string | string[] | undefined): number | null {
  const n = Number(Array.isArray(value) ? value[0] : value);
  return value !== undefined && Number.isInteger(n) ? n : null;
}

/** The path of a request target: what is before its query. */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** A peer on this machine: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6. */
function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}
