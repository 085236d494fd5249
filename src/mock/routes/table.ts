/**
 * The mock's routes: path → method, the endpoint its requests are counted under, the largest body
 * it reads, and its handler. A GET route answers HEAD too (same headers, no body).
 */
import { API_PATHS } from '../../spec/index.js';
import { LOG_PATH, STATS_PATH } from '../paths.js';
import type { StatEndpoint } from '../stats.js';
import type { RouteHandler } from './context.js';
import { handleIdentification, IDENTIFICATION_MAX_BODY_BYTES } from './identification.js';
import { handleLog, handleStats } from './internal.js';
import { handleObfuscation, OBFUSCATION_MAX_BODY_BYTES } from './obfuscation.js';
import { handleSession } from './session.js';
import { handleToken, TOKEN_MAX_BODY_BYTES } from './token.js';

export { LOG_PATH, STATS_PATH };

interface Route {
  readonly method: 'GET' | 'POST';
  /** Where its requests are counted in the stats; null for the mock's own routes (not counted). */
  readonly endpoint: StatEndpoint | null;
  /** The largest body the route reads (bytes); 0 for routes that read none. */
  readonly maxBodyBytes: number;
  readonly handler: RouteHandler;
}

// A Map, not an object: a path is request text, and must never find Object.prototype's members.
const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  [API_PATHS.token, { method: 'POST', endpoint: 'token', maxBodyBytes: TOKEN_MAX_BODY_BYTES, handler: handleToken }],
  [API_PATHS.session, { method: 'GET', endpoint: 'session', maxBodyBytes: 0, handler: handleSession }],
  [
    API_PATHS.identification,
    {
      method: 'POST',
      endpoint: 'identification',
      maxBodyBytes: IDENTIFICATION_MAX_BODY_BYTES,
      handler: handleIdentification,
    },
  ],
  [
    API_PATHS.obfuscation,
    { method: 'POST', endpoint: 'obfuscation', maxBodyBytes: OBFUSCATION_MAX_BODY_BYTES, handler: handleObfuscation },
  ],
  [STATS_PATH, { method: 'GET', endpoint: null, maxBodyBytes: 0, handler: handleStats }],
  [LOG_PATH, { method: 'GET', endpoint: null, maxBodyBytes: 0, handler: handleLog }],
]);

/** The route at `path` (the request target without its query), if any. */
export function findRoute(path: string): Route | undefined {
  return ROUTES.get(path);
}

/** The methods a route takes, as the `Allow` header lists them. */
export function allowedMethods(route: Route): string {
  return route.method === 'GET' ? 'GET, HEAD' : route.method;
}

/** Whether `method` is one the route takes. */
export function allowsMethod(route: Route, method: string | undefined): boolean {
  return method === route.method || (route.method === 'GET' && method === 'HEAD');
}
