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
