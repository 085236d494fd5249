/** Why the pool ended a request itself, before its answer was whole. */

/** Our own deadline passed before the answer was whole. */
export class DeadlineError extends Error {
  readonly code = 'LOADPROOF_DEADLINE';
  constructor() {
    super('no complete answer before the deadline');
    this.name = 'DeadlineError';
  }
}

/** The request was cancelled (the run's drain ended) before its answer was whole. */
export class CancelledError extends Error {
  readonly code = 'LOADPROOF_CANCELLED';
  constructor() {
    super('cancelled before the answer was complete');
    this.name = 'CancelledError';
  }
}

/**
 * A connection that sat idle in the pool (after an answer, or since it was opened) closed or reset before any
 * byte of the answer: the server most likely closed it while it sat idle, and our request crossed its close.
 * That is the client's stale connection, not the service's error. `neverSent`: the write itself failed, so no
 * byte of the request left (it may be sent again); otherwise the server may have read it: a POST is not sent twice.
 */
export class StaleConnectionError extends Error {
  readonly code = 'LOADPROOF_STALE_CONNECTION';
  constructor(
    readonly neverSent: boolean,
    cause: Error,
    /** How long the connection had sat idle in the pool before the request was written on it (wall ms). */
    readonly idleMs = 0,
  ) {
    super(
      neverSent
        ? 'the kept-alive connection had been closed by the server: the request could not be written'
        : 'the kept-alive connection closed before any byte of the answer: the server may have closed it while idle',
      { cause },
    );
    this.name = 'StaleConnectionError';
  }
}
