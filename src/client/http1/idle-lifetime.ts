/** How long a kept-alive connection may sit idle and still carry a request. */

/**
 * A server closes a kept-alive connection that sat idle past its own timeout, often without saying it (nginx,
 * haproxy and gunicorn send no Keep-Alive header), and a request that crosses that close is lost to a stale
 * connection. So a connection idle longer than this is not used: well under the shortest common defaults
 * (gunicorn 2 s; Node's http server, Apache and uvicorn 5 s, which say it; nginx 75 s, AWS ALB 60 s). Below it,
 * a reconnect is a handshake paid in the latency of requests more than 1.5 s apart on one connection. A
 * server configured shorter still (nginx keepalive_timeout 1s) races it: those requests end stale_connection.
 */
export const DEFAULT_IDLE_LIFETIME_MS = 1500;

/**
 * The idle time (wall ms) after which a connection is not used: `configuredMs`, and never past the server's own
 * Keep-Alive timeout (`keepAliveMs`, when its last answer said one) less a margin, since its timer started before
 * ours by the time its answer took to reach us: a second, or half of a shorter timeout (timeout=1 allows 500 ms,
 * where a whole second would leave nothing and reconnect for every request).
 */
export function idleLifetimeMs(configuredMs: number, keepAliveMs: number | undefined): number {
  if (keepAliveMs === undefined) return configuredMs;
  return Math.min(configuredMs, keepAliveMs - Math.min(1000, keepAliveMs / 2));
}

/**
 * The idle time a pool keeps to after a request met a connection the server closed while it sat `idleMs` idle: the
 * server's timeout is at most about that, so half of it is surely under it. Without it, every later request as far
 * apart would race the same close (nginx keepalive_timeout 1s and arrivals a second apart: half of them).
 */
export function learnedIdleLimitMs(idleMs: number): number {
  return idleMs / 2;
}
