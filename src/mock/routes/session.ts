/** GET /precision/normalize/session: 200 with a new UUID (spec "Create session"). */
import { randomUUID } from 'node:crypto';

import { sendJson } from '../http.js';
import { authorize, type RouteHandler } from './context.js';

export const handleSession: RouteHandler = (req, res, ctx) => {
  if (authorize(req, res, ctx) === undefined) return;
  sendJson(res, 200, { session_id: randomUUID() });
};
