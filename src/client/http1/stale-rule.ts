/** When a close under a request on a kept-alive connection can be the server's idle close, and not its fault. */

/**
 * The least time a connection must have sat idle in the pool for a close under its next request to be an idle
 * close. Servers close idle connections after seconds (nginx 75 s by default, gunicorn 2 s, keepalive_timeout 1s
 * at the shortest seen): one idle for less than this cannot have been closed for idleness.
 */
export const STALE_IDLE_FLOOR_MS = 100;

/**
 * The least of the window after our write in which the close must be seen. An idle close that crosses our request
 * was sent before our bytes arrived, so it reaches us within about one round trip of the write; a close seconds
 * later came after the server had the request, and is its fault. The window is generous (a quarter second, or 4 ×
 * the connection's own setup time, which includes the round trips of a TLS handshake or a proxy's tunnel) because
 * a stalled event loop on our side delays when we SEE the close, not when it came.
 */
const STALE_WINDOW_MIN_MS = 250;

/** How long after our write a close can still be an idle close, on a connection that took `setupMs` to make. */
export function staleWindowMs(setupMs: number): number {
  return Math.max(STALE_WINDOW_MIN_MS, 4 * setupMs);
}

/** What we know of a request cut short before any byte of its answer. */
interface CutShort {
  /** How long its connection sat idle in the pool before the write (0: handed on as it was made or answered). */
  readonly idleMs: number;
  /** How long after the write we saw the close. */
  readonly sinceWriteMs: number;
  /** How long the connection took to make (connect, handshake, tunnel). */
  readonly setupMs: number;
}

/** The close can be the server's idle close crossing our request (else it is the service's reset). */
export function couldBeIdleClose(cut: CutShort): boolean {
  return cut.idleMs >= STALE_IDLE_FLOOR_MS && cut.sinceWriteMs <= staleWindowMs(cut.setupMs);
}
