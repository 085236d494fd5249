/** Small HTTP helpers of the mock: read a bounded body, parse JSON, answer in JSON. */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { BodyLease } from './body-budget.js';

type BodyRead =
  | { readonly ok: true; readonly body: string }
  | { readonly ok: false; readonly reason: 'too_large' | 'over_budget' | 'aborted' };

/**
 * Reads a request body of at most `maxBytes`, taking each chunk from `lease` as it arrives. At the
 * first chunk past the cap or the budget it stops reading and gives the bytes back at once: the
 * caller answers and closes the connection, so the rest of an attacker's body is never drained.
 */
export function readBody(req: IncomingMessage, maxBytes: number, lease: BodyLease): Promise<BodyRead> {
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyRead): void => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const stop = (reason: 'too_large' | 'over_budget'): void => {
      req.removeListener('data', onData);
      req.pause();
      chunks = [];
      lease.release();
      settle({ ok: false, reason });
    };
    const onData = (chunk: Buffer): void => {
      if (size + chunk.length > maxBytes) return stop('too_large');
      if (!lease.take(chunk.length)) return stop('over_budget');
      size += chunk.length;
      chunks.push(chunk);
    };
    req.on('data', onData);
    // One chunk (the usual small body) is decoded as it is: Buffer.concat would copy it first.
    req.on('end', () =>
      settle({ ok: true, body: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8') }),
    );
    req.on('aborted', () => settle({ ok: false, reason: 'aborted' }));
    req.on('error', () => settle({ ok: false, reason: 'aborted' }));
  });
}

export function isJsonContentType(req: IncomingMessage): boolean {
  const header = req.headers['content-type'];
  if (header === 'application/json') return true; // what nearly every client sends: no parsing
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

type JsonParse = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

export function parseJson(body: string): JsonParse {
  try {
    return { ok: true, value: JSON.parse(body) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** Answers a body already serialised as JSON (which may be cut short: a `malformed` fault), with its length. */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  // All headers in one object to writeHead: node:http's fast path (no per-header setHeader).
  res.writeHead(status, { 'content-type': JSON_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An error in the OAuth 2.0 shape (RFC 6749 §5.2), used by every endpoint of the mock. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): void {
  sendJson(res, status, { error, error_description: description, ...extra }, headers);
}
