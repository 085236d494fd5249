/**
 * The per-client rate limiter: a token bucket refilled at the sustained rate, whose capacity
 * lets the burst rate run for the burst duration from full:
 *   capacity = (burstRpm − sustainedRpm) × burstMinutes + 1   (spec defaults: (200 − 100) × 5 + 1 = 501)
 * so 100 rpm runs forever, 200 rpm for 5 minutes, 300 rpm for 2.5 minutes before the first 429.
 * The + 1 is the request at time 0, which is served before any refill: without it the last
 * request of an exact 5-minute burst at 200 rpm would find half a token.
 * Times are model milliseconds from an injected clock.
 */

export interface RateLimit {
  /** Refill rate: requests per minute that can run forever. */
  readonly sustainedRpm: number;
  /** A rate that can run for `burstMinutes` starting from a full bucket. */
  readonly burstRpm: number;
  readonly burstMinutes: number;
}

/** Bucket capacity for a rate limit (see above); at least 1 so a single request always fits. */
export function bucketCapacity(limit: RateLimit): number {
  return Math.max(0, (limit.burstRpm - limit.sustainedRpm) * limit.burstMinutes) + 1;
}

export class TokenBucket {
  private tokens: number;
  private lastMs: number;
  private readonly refillPerMs: number;
  readonly capacity: number;

  constructor(limit: RateLimit, nowMs: number) {
    this.capacity = bucketCapacity(limit);
    this.refillPerMs = limit.sustainedRpm / 60_000;
    this.tokens = this.capacity;
    this.lastMs = nowMs;
  }

  /** Tokens available now (fractional). */
  level(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  /** Takes one token if a whole one is available. */
  tryTake(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Gives back a token taken for a request that was then not served. */
  giveBack(): void {
    this.tokens = Math.min(this.capacity, this.tokens + 1);
  }

  /** Milliseconds until a whole token is available (0 if one is). */
  msUntilToken(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens >= 1 ? 0 : (1 - this.tokens) / this.refillPerMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.lastMs) {
      this.tokens = Math.min(this.capacity, this.tokens + (nowMs - this.lastMs) * this.refillPerMs);
      this.lastMs = nowMs;
    }
  }
}

/** Whole seconds ≥ 1 to put in Retry-After for a wait of `waitMs`. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
