/**
 * One budget for the request bodies the mock holds, across every request in progress, so that many
 * unfinished bodies cannot take the memory of the process (each endpoint's cap bounds one body;
 * this bounds their sum). A request leases bytes as its body arrives and gives them all back when
 * its response closes, whichever way it closes.
 */

/** The budget's state, as `/__mock/stats` shows it under `buffered`. */
export interface BufferedSnapshot {
  /** Bytes of request bodies held now. */
  readonly bytes: number;
  /** Requests holding at least one byte now. */
  readonly requests: number;
  /** The most bytes ever held at once since the server started. */
  readonly peakBytes: number;
  /** The budget (bytes); a request whose next chunk would pass it is refused with 503. */
  readonly budgetBytes: number;
  /** Requests refused because the budget was spent. */
  readonly refused: number;
}

/** One request's share of the budget. */
export interface BodyLease {
  /** Takes `bytes` more; false (and nothing taken) when that would pass the budget. */
  take(bytes: number): boolean;
  /** Gives back everything this lease holds; calling it again is harmless. */
  release(): void;
}

export class BodyBudget {
  private bytes = 0;
  private requests = 0;
  private peakBytes = 0;
  private refused = 0;

  /** @param budgetBytes the most bytes of bodies held at once, across all requests */
  constructor(readonly budgetBytes: number) {}

  lease(): BodyLease {
    return new Lease(this);
  }

  /** Takes `bytes` for a lease (`first`: the lease held none); false when that would pass the budget. */
  grant(bytes: number, first: boolean): boolean {
    if (this.bytes + bytes > this.budgetBytes) {
      this.refused++;
      return false;
    }
    if (first && bytes > 0) this.requests++;
    this.bytes += bytes;
    this.peakBytes = Math.max(this.peakBytes, this.bytes);
    return true;
  }

  /** Gives back all `bytes` a lease held. */
  giveBack(bytes: number): void {
    this.bytes -= bytes;
    this.requests--;
  }

  snapshot(): BufferedSnapshot {
    return {
      bytes: this.bytes,
      requests: this.requests,
      peakBytes: this.peakBytes,
      budgetBytes: this.budgetBytes,
      refused: this.refused,
    };
  }
}

/** A class, not a pair of closures: one is made per request. */
class Lease implements BodyLease {
  private held = 0;

  constructor(private readonly budget: BodyBudget) {}

  take(bytes: number): boolean {
    if (!this.budget.grant(bytes, this.held === 0)) return false;
    this.held += bytes;
    return true;
  }

  release(): void {
    if (this.held === 0) return;
    this.budget.giveBack(this.held);
    this.held = 0;
  }
}
