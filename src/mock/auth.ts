/**
 * Access tokens of the mock: opaque random strings with a lifetime on the model clock. The
 * token identifies the client (the rate limiter's key), as the spec says it does. Each starts with
 * MOCK_TOKEN_PREFIX, so a leak scanner (and loadproof's own leak test) can find one anywhere.
 */
import { randomBytes } from 'node:crypto';

import type { Clock } from '../core/index.js';

export const MOCK_TOKEN_PREFIX = 'lpmock_at_';

interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in model seconds. */
  readonly expiresInS: number;
}

type TokenCheck =
  | { readonly ok: true; readonly clientId: string }
  | { readonly ok: false; readonly reason: 'missing' | 'unknown' | 'expired' };

/** Most tokens the store holds by default; issuing one more evicts the oldest. */
const MAX_HELD_TOKENS = 10_000;

interface TokenStoreOptions {
  /** Most tokens held at once (live, or expired less than one lifetime ago). */
  readonly maxHeld?: number;
}

/**
 * Every token has the same lifetime, so the order of issue is the order of expiry: forgetting starts
 * at the oldest and stops at the first token still to keep, which costs one look plus one per token
 * forgotten, however many are held. The order is a queue of its own, not the Map's iteration order:
 * a Map iterated from the start walks over the holes its deletions left, until it rehashes. An
 * expired token is kept for one more lifetime, so a late call hears "expired" rather than "unknown".
 */
export class TokenStore {
  private readonly tokens = new Map<string, { readonly clientId: string; readonly expiresAtMs: number }>();
  /** Tokens in the order of issue from `head` on (the ones before `head` are forgotten). */
  private order: string[] = [];
  private head = 0;
  private readonly ttlMs: number;
  private readonly maxHeld: number;
  /** Tokens looked at while forgetting or evicting since the start: the work `issue` does (for tests). */
  visited = 0;
  /** Tokens evicted, still live, because `maxHeld` were held. */
  evicted = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlS: number,
    options: TokenStoreOptions = {},
  ) {
    this.ttlMs = ttlS * 1000;
    this.maxHeld = options.maxHeld ?? MAX_HELD_TOKENS;
  }

  /** Tokens held now. */
  get size(): number {
    return this.tokens.size;
  }

  issue(clientId: string): IssuedToken {
    const nowMs = this.clock.nowMs();
    this.forget(nowMs);
    const accessToken = MOCK_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    this.tokens.set(accessToken, { clientId, expiresAtMs: nowMs + this.ttlMs });
    this.order.push(accessToken);
    return { accessToken, expiresInS: this.ttlS };
  }

  /** Checks an `Authorization` header value. */
  check(authorization: string | undefined): TokenCheck {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (match === null) return { ok: false, reason: 'missing' };
    const entry = this.tokens.get(match[1]!);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    if (this.clock.nowMs() >= entry.expiresAtMs) return { ok: false, reason: 'expired' };
    return { ok: true, clientId: entry.clientId };
  }

  /** Drops, oldest first, the tokens expired for a lifetime, then the oldest while the store is full. */
  private forget(nowMs: number): void {
    while (this.head < this.order.length) {
      const token = this.order[this.head]!;
      const entry = this.tokens.get(token)!;
      this.visited++;
      const expiredLongAgo = nowMs >= entry.expiresAtMs + this.ttlMs;
      const full = this.tokens.size >= this.maxHeld;
      if (!expiredLongAgo && !full) break;
      if (!expiredLongAgo && nowMs < entry.expiresAtMs) this.evicted++;
      this.tokens.delete(token);
      this.head++;
    }
    // Drop the forgotten front once it is most of the queue: amortised O(1) per token.
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}
