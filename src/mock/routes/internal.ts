/** The mock's own routes, not part of the API: GET /__mock/stats and GET /__mock/log. */
import { sendJson } from '../http.js';
import type { RouteHandler } from './context.js';

export const handleStats: RouteHandler = (_req, res, ctx) => sendJson(res, 200, ctx.stats());

export const handleLog: RouteHandler = (_req, res, ctx) => sendJson(res, 200, ctx.requestLog.snapshot());
