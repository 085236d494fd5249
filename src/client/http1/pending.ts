/** A request waiting in, or carried by, the connection pool (pool.ts). */
import type { Connection, Exchange } from './connection.js';
import type { Expiring } from './deadlines.js';
import { DeadlineError, StaleConnectionError } from './request-errors.js';
import type { Http1Response } from './response.js';

/** What ends a pending request when its deadline passes: the pool, which takes it off its connection or queue. */
interface FailsPending {
  fail(pending: Pending, error: Error): void;
  /** A request met a connection the server had closed while it sat idle: the pool learns the server's timeout. */
  sawStale(error: StaleConnectionError): void;
}

/**
 * A request in the pool: an exchange with a deadline, and the connection it is on, once it has one.
 * It stays in the deadline queue after it settles (until the sweep passes it), so it lets go of its
 * bytes and its callback then: a settled one costs a few words, not the request it carried.
 */
export class Pending implements Exchange, Expiring {
  settled = false;
  connection: Connection | undefined = undefined;
  bytes: string | Uint8Array;
  onSent: () => void;
  stallsSeen?: number;
  private callback: ((error: Error | undefined, response: Http1Response | undefined) => void) | undefined;
  constructor(
    bytes: string | Uint8Array,
    public deadlineAt: number,
    readonly latestAt: number | undefined,
    onSent: () => void,
    callback: (error: Error | undefined, response: Http1Response | undefined) => void,
    private readonly pool: FailsPending,
  ) {
    this.bytes = bytes;
    this.onSent = onSent;
    this.callback = callback;
  }

  done(error: Error | undefined, response: Http1Response | undefined): void {
    const callback = this.callback;
    if (this.settled || callback === undefined) return;
    this.settled = true;
    this.connection = undefined;
    this.callback = undefined;
    this.bytes = '';
    this.onSent = noop;
    if (error instanceof StaleConnectionError) this.pool.sawStale(error);
    callback(error, response);
  }

  expire(): void {
    this.pool.fail(this, new DeadlineError());
  }
}

const noop = (): void => {};
