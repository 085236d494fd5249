/**
 * POST /oauth/token: OAuth 2.0 client credentials, JSON only (spec "Authentication").
 * Checks, in order: 415 not sent as JSON (before reading anything) → 413 body over 16 KiB → 415
 * not valid JSON → 400 invalid_request (not an object, a field missing or not a
 * string) → 400 unsupported_grant_type → 401 invalid_client → 403 audience missing or wrong.
 */
import { timingSafeEqual } from 'node:crypto';

import { describeValue } from '../../core/index.js';
import { GRANT_TYPE } from '../../spec/index.js';
import { isJsonContentType, parseJson, sendError, sendJson } from '../http.js';
import { readCappedBody, type RouteHandler } from './context.js';

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Largest token request body (bytes): four short strings need a few hundred; 16 KiB is generous. */
export const TOKEN_MAX_BODY_BYTES = 16 * 1024;

const NOT_JSON = 'the body must be valid JSON sent with Content-Type: application/json (form encoding is not accepted)';

export const handleToken: RouteHandler = async (req, res, ctx) => {
  if (!isJsonContentType(req)) {
    sendError(res, 415, 'invalid_request', NOT_JSON);
    return;
  }
  const text = await readCappedBody(req, res, ctx, TOKEN_MAX_BODY_BYTES);
  if (text === undefined) return;
  const parsed = parseJson(text);
  if (!parsed.ok) {
    sendError(res, 415, 'invalid_request', NOT_JSON);
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
      sendError(
        res,
        400,
        'invalid_request',
        `${name}: expected a string, got ${name === 'client_secret' && fields[name] !== undefined ? 'a non-string value' : describeValue(fields[name])}`,
      );
      return;
    }
  }
  if (fields.grant_type !== GRANT_TYPE) {
    sendError(
      res,
      400,
      'unsupported_grant_type',
      `grant_type: expected "${GRANT_TYPE}", got ${describeValue(fields.grant_type)}`,
    );
    return;
  }
  const clientId = fields.client_id as string;
  const secret = ctx.clients.get(clientId);
  if (secret === undefined || !sameSecret(secret, fields.client_secret as string)) {
    sendError(res, 401, 'invalid_client', 'client_id or client_secret is incorrect');
    return;
  }
  // Exactly the base URL (spec: the audience is `{base_url}`), as the real service compares it: no trailing
  // slash, no other case, no other spelling of the host or port.
  if (typeof fields.audience !== 'string' || fields.audience !== ctx.audience()) {
    const got =
      fields.audience === undefined
        ? 'audience is missing'
        : `audience ${describeValue(fields.audience)} is not this service`;
    sendError(res, 403, 'access_denied', `${got}; expected the base URL "${ctx.audience()}"`);
    return;
  }
  const issued = ctx.tokens.issue(clientId);
  sendJson(
    res,
    200,
    { access_token: issued.accessToken, token_type: 'Bearer', expires_in: issued.expiresInS },
    { 'cache-control': 'no-store', pragma: 'no-cache' },
  );
};
