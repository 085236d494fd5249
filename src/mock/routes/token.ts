/**
 * POST /oauth/token: OAuth 2.0 client credentials, JSON only (spec "Authentication").
 * Checks, in order: 415 not JSON → 400 invalid_request (not an object, a field missing or not a
 * string) → 400 unsupported_grant_type → 401 invalid_client → 403 audience missing or wrong.
 */
import { describeValue } from '../../core/text.js';
import { timingSafeEqual } from 'node:crypto';
import { GRANT_TYPE } from '../../spec/index.js';
import { isJsonContentType, parseJson, readBody, sendError, sendJson } from '../http.js';
import type { RouteHandler } from './context.js';

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

export const handleToken: RouteHandler = async (req, res, ctx) => {
  const read = await readBody(req);
  if (!read.ok) {
    if (read.reason === 'too_large') sendError(res, 413, 'invalid_request', 'the request body is over 1 MiB');
    return;
  }
  const parsed = isJsonContentType(req) ? parseJson(read.body) : undefined;
  if (parsed === undefined || !parsed.ok) {
    sendError(res, 415, 'invalid_request', 'the body must be valid JSON sent with Content-Type: application/json (form encoding is not accepted)');
    return;
  }
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    sendError(res, 400, 'invalid_request', `the body must be a JSON object, got ${describeValue(body)}`);
    return;
  }
  const fields = body as Record<string, unknown>;
  for (const name of ['grant_type', 'client_id', 'client_secret'] as const) {
    if (typeof fields[name] !== 'string') {
      sendError(res, 400, 'invalid_request', `${name}: expected a string, got ${name === 'client_secret' && fields[name] !== undefined ? 'a non-string value' : describeValue(fields[name])}`);
      return;
    }
  }
  if (fields.grant_type !== GRANT_TYPE) {
    sendError(res, 400, 'unsupported_grant_type', `grant_type: expected "${GRANT_TYPE}", got ${describeValue(fields.grant_type)}`);
    return;
  }
  const clientId = fields.client_id as string;
  const secret = ctx.clients.get(clientId);
  if (secret === undefined || !sameSecret(secret, fields.client_secret as string)) {
    sendError(res, 401, 'invalid_client', 'client_id or client_secret is incorrect');
    return;
  }
  if (typeof fields.audience !== 'string' || trimSlash(fields.audience) !== trimSlash(ctx.audience())) {
    const got = fields.audience === undefined ? 'audience is missing' : `audience ${describeValue(fields.audience)} is not this service`;
    sendError(res, 403, 'access_denied', `${got}; expected the base URL "${ctx.audience()}"`);
    return;
  }
  const issued = ctx.tokens.issue(clientId);
  sendJson(res, 200, { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresInS }, { 'cache-control': 'no-store', pragma: 'no-cache' });
};
