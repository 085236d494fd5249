/** What every route handler of the mock needs, and the steps they share. */
import type { IncomingMessage } from 'node:http';

import { type Clock, describeValue, type Rng } from '../../core/index.js';
import { formatModelTime as modelTiming, LIMIT_429_CODES } from '../../spec/index.js';
import type { TokenStore } from '../auth.js';
import type { BodyBudget } from '../body-budget.js';
import { drawFault, type Fault } from '../faults.js';
import type { Gateway, GatewayOutcome } from '../gateway.js';
import { isJsonContentType, parseJson, readBody, sendError, sendJsonText } from '../http.js';
import type { FaultRates } from '../profiles.js';
import type { MockResponse } from '../response.js';
import type { MockCounters, RequestLog } from '../stats.js';

export interface MockContext {
  readonly clock: Clock;
  /**
   * How far (model ms) the model runs behind the real clock (ModelClock.lagMs); 0 for none: a request that says when it
   * was due is admitted then.
   */
  readonly modelLagMs: number;
  readonly tokens: TokenStore;
  readonly counters: MockCounters;
  /** Registered clients: client_id → client_secret. */
  readonly clients: ReadonlyMap<string, string>;
  /** The audience the token endpoint accepts (the base URL, known once listening). */
  audience(): string;
  readonly identification: Gateway;
  readonly obfuscation: Gateway;
  readonly faults: FaultRates;
  readonly faultRng: Rng;
  /** Text limit of identification, in model tokens. */
  readonly maxTextTokens: number;
  readonly outputTokenCap: number;
  /** Share of the entities found that identification leaves out (MockProfile.entityDropRate). */
  readonly entityDropRate: number;
  /** Bytes of request bodies held across all requests in progress. */
  readonly bodyBudget: BodyBudget;
  /** The pipeline requests of GET /__mock/log. */
  readonly requestLog: RequestLog;
  /** The answer of GET /__mock/stats. */
  stats(): unknown;
  /** 429s go without Retry-After (MockServerOptions.omitRetryAfter). */
  readonly omitRetryAfter: boolean;
}

export type RouteHandler = (req: IncomingMessage, res: MockResponse, ctx: MockContext) => Promise<void> | void;

/** Checks the bearer token; answers 401 (RFC 6750) and returns undefined when it is not valid. */
export function authorize(req: IncomingMessage, res: MockResponse, ctx: MockContext): string | undefined {
  const check = ctx.tokens.check(req.headers.authorization);
  if (check.ok) return check.clientId;
  const description = {
    missing: 'no bearer token: send Authorization: Bearer <access_token> from POST /oauth/token',
    unknown:
      'the access token is not one this server holds: never issued, or forgotten (a lifetime after it expired, or evicted as the oldest of 10000)',
    expired: 'the access token expired; request a new one from POST /oauth/token',
  }[check.reason];
  const challenge =
    check.reason === 'missing'
      ? 'Bearer realm="loadproof-mock"'
      : `Bearer realm="loadproof-mock", error="invalid_token", error_description="${description}"`;
  sendError(res, 401, 'invalid_token', description, { 'www-authenticate': challenge });
  return undefined;
}

/**
 * Reads a body of at most `maxBytes` under the server's body budget; answers 413 (over the cap) or
 * 503 (budget spent) itself, closing the connection, and returns undefined then. The bytes stay
 * leased until the response closes.
 */
export async function readCappedBody(
  req: IncomingMessage,
  res: MockResponse,
  ctx: MockContext,
  maxBytes: number,
): Promise<string | undefined> {
  const lease = ctx.bodyBudget.lease();
  // Given back by the server when the response closes, whichever way it closes.
  res.lease = lease;
  const read = await readBody(req, maxBytes, lease);
  if (read.ok) return read.body;
  if (read.reason === 'too_large') {
    sendError(
      res,
      413,
      'payload_too_large',
      `the request body is over this endpoint's limit of ${maxBytes} bytes`,
      { connection: 'close' },
      { max_bytes: maxBytes },
    );
  } else if (read.reason === 'over_budget') {
    sendError(
      res,
      503,
      'server_busy',
      'the mock holds too many request bodies at once; retry after 1 s',
      { connection: 'close', 'retry-after': '1' },
      { retry_after: 1 },
    );
  }
  return undefined;
}

/** Checks the content type (415) before reading anything, then reads a JSON body (413/503, 400 unparsable). */
export async function readJsonBody(
  req: IncomingMessage,
  res: MockResponse,
  ctx: MockContext,
  maxBytes: number,
): Promise<{ value: unknown } | undefined> {
  if (!isJsonContentType(req)) {
    sendError(
      res,
      415,
      'unsupported_media_type',
      `send the body as JSON with Content-Type: application/json (got ${describeValue(req.headers['content-type'])})`,
    );
    return undefined;
  }
  const body = await readCappedBody(req, res, ctx, maxBytes);
  if (body === undefined) return undefined;
  const parsed = parseJson(body);
  if (!parsed.ok) {
    sendError(res, 400, 'invalid_json', `the body is not valid JSON: ${parsed.message}`);
    return undefined;
  }
  return { value: parsed.value };
}

/** A 429's headers: Retry-After unless the mock plays a gateway that leaves it out. */
const limitedHeaders = (ctx: MockContext, retryAfterS: number, serverTiming: string): Record<string, string> =>
  ctx.omitRetryAfter
    ? { 'server-timing': serverTiming }
    : { 'retry-after': String(retryAfterS), 'server-timing': serverTiming };

/**
 * Answers a rate-limited endpoint's gateway outcome: 429 with Retry-After, 504, or the result
 * (with the profile's injected faults). Server-Timing carries the model times, in model ms:
 * `svc` on every answer, from admission to when the model meant the answer to leave (0 for a 429,
 * the timeout for a 504, queue + service + hold for a result, plus the extra of a slow fault) — from
 * the due time instead when the client said it (the request's entry delay first, ModelClock.arrival);
 * `lag` when the model runs behind the real clock; and for a result the parts `queue`, `service` and
 * `hold`. `resultJson` serialises the result.
 */
export function answerOutcome(
  res: MockResponse,
  outcome: GatewayOutcome,
  ctx: MockContext,
  resultJson: () => string,
): void {
  const timing = (modelMs: number): string => modelTiming(res.entryMs + modelMs, res.lagMs);
  // Admitted at its due time, the request has its entry delay still to count: its answer leaves that much later.
  const entryLeftMs = res.entryMs - (res.arrivedAtMs - res.dueAtMs);
  let answer: () => void;
  let extraMs = 0;
  switch (outcome.kind) {
    case 'rate_limited':
      answer = () =>
        sendError(
          res,
          429,
          LIMIT_429_CODES.rateLimit,
          `rate limit exceeded; retry after ${outcome.retryAfterS} s`,
          limitedHeaders(ctx, outcome.retryAfterS, timing(0)),
          { retry_after: outcome.retryAfterS },
        );
      break;
    case 'concurrency_limited':
      answer = () =>
        sendError(
          res,
          429,
          LIMIT_429_CODES.inFlight,
          `too many requests in flight and the queue is full; retry after ${outcome.retryAfterS} s`,
          limitedHeaders(ctx, outcome.retryAfterS, timing(0)),
          { retry_after: outcome.retryAfterS },
        );
      break;
    case 'timeout':
      answer = () =>
        sendError(
          res,
          504,
          'gateway_timeout',
          `the request reached the service timeout of ${Number((outcome.modelMs / 1000).toPrecision(3))} s`,
          { 'server-timing': timing(outcome.modelMs) },
        );
      break;
    case 'ok': {
      // Drawn now, in the model's order, not when the answer leaves.
      const fault = drawFault(ctx.faults, ctx.faultRng);
      if (fault === 'slow') {
        ctx.counters.faults.slow++;
        extraMs = ctx.faults.slowExtraMs;
      }
      const headers = {
        'server-timing': `${timing(outcome.modelMs + extraMs)}, queue;dur=${outcome.queuedMs.toFixed(1)}, service;dur=${outcome.serviceMs.toFixed(1)}, hold;dur=${outcome.heldMs.toFixed(1)}`,
      };
      answer = () => answerWithFault(res, ctx, resultJson, fault, headers);
      break;
    }
    default: {
      const unreachable: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unreachable)}`);
    }
  }
  const delayMs = entryLeftMs + extraMs;
  if (delayMs > 0) ctx.clock.setTimer(ctx.clock.nowMs() + delayMs, answer);
  else answer();
}

function answerWithFault(
  res: MockResponse,
  ctx: MockContext,
  resultJson: () => string,
  fault: Fault,
  headers: Record<string, string>,
): void {
  switch (fault) {
    case 'none':
    case 'slow': // late by now: answerOutcome held it
      sendJsonText(res, 200, resultJson(), headers);
      return;
    case 'reset':
      ctx.counters.faults.reset++;
      res.reset = true;
      res.socket?.destroy();
      return;
    case 'http500':
      ctx.counters.faults.http500++;
      sendError(res, 500, 'internal_error', 'injected fault: the service failed (flaky profile)', headers);
      return;
    case 'malformed': {
      ctx.counters.faults.malformed++;
      sendJsonText(res, 200, resultJson().slice(0, 24), headers);
      return;
    }
    default: {
      const unreachable: never = fault;
      throw new Error(`unknown fault ${String(unreachable)}`);
    }
  }
}
