/**
 * The mock's response object: node:http's ServerResponse carrying, as plain fields, what the server
 * tracks per request (its endpoint, when it arrived and was answered in model ms, its Retry-After,
 * its body lease). The server makes node:http create it (createServer's ServerResponse option), so a
 * request costs no per-request closures, bound methods or WeakSet entries, only one shared 'close'
 * listener: the mock's hot path is this bookkeeping as much as the model.
 */
import { type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';

import type { Clock } from '../core/index.js';
import { formatModelTime } from '../spec/index.js';
import type { BodyLease } from './body-budget.js';
import type { StatEndpoint } from './stats.js';

/** Server-Timing of a pipeline answer that never reached the modelled service: it spent no model time there. */
const NO_MODEL_TIME = formatModelTime(0);

export class MockResponse extends ServerResponse {
  /** The model clock, to stamp `answeredAtMs`; set by the server before the route runs. */
  clock: Clock | undefined;
  /** Where the request is counted; null for the mock's own routes (not counted). */
  endpoint: StatEndpoint | null = null;
  /** An answer of identification or obfuscation: it carries Server-Timing. */
  pipeline = false;
  /** The most body bytes the route reads: an answer with more unread must close the connection. */
  maxBodyBytes = 0;
  /**
   * When the request entered the model (model ms): when its headers arrived, or its due time plus the delay
   * (ModelClock.arrival).
   */
  arrivedAtMs = 0;
  /** When the client said it was due, in model ms (DUE_HEADER); `arrivedAtMs` when it did not say. */
  dueAtMs = 0;
  /** Its entry delay as it counts in its latency (model ms, ModelClock.arrival); 0 without DUE_HEADER. */
  entryMs = 0;
  /**
   * How long after its model time its answer leaves (model ms, Server-Timing `lag`): the model's lag when it entered at
   * its due time, else 0.
   */
  lagMs = 0;
  /** When the answer was written (model ms), not when 'close' fires later: the time a client can act on it. */
  answeredAtMs: number | undefined;
  /** The answer's Retry-After (s), for the request log. */
  retryAfterS: number | null = null;
  /** The mock destroyed the connection on purpose (a `reset` fault). */
  reset = false;
  /** The request body's share of the server's body budget, given back when the response closes. */
  lease: BodyLease | undefined;

  /**
   * Stamps the answer and adds the headers every answer of the mock needs: Server-Timing on a
   * pipeline's answer that has none, and Connection: close when the body is left unread. The mock
   * passes its headers as an object (kept as is: node:http's fast path); an array is passed on untouched.
   */
  override writeHead(
    statusCode: number,
    a?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    b?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    this.answeredAtMs ??= this.clock?.nowMs();
    const given = typeof a === 'string' ? b : a;
    const headers = given === undefined || Array.isArray(given) ? undefined : given;
    const set = (name: string, value: string): void => {
      if (headers !== undefined) headers[name] = value;
      else this.setHeader(name, value);
    };
    if (this.pipeline && headers?.['server-timing'] === undefined && !this.hasHeader('server-timing'))
      set('server-timing', NO_MODEL_TIME);
    if (mustCloseForUnreadBody(this, this.maxBodyBytes)) set('connection', 'close');
    const retryAfter = Number(headers?.['retry-after'] ?? this.getHeader('retry-after'));
    this.retryAfterS = Number.isInteger(retryAfter) ? retryAfter : null;
    if (typeof a === 'string') return super.writeHead(statusCode, a, b);
    return super.writeHead(statusCode, a);
  }
}

/**
 * Whether answering now must close the connection: the request's body is not all read, and it is
 * chunked (unbounded) or declared larger than the route reads. A small declared rest is cheaper to
 * discard than a new connection, so keep-alive survives an early 401 or 415 of a normal client.
 */
function mustCloseForUnreadBody(res: ServerResponse, maxBodyBytes: number): boolean {
  const req = res.req;
  if (req.complete) return false;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return Number(req.headers['content-length'] ?? 0) > maxBodyBytes;
}
