/**
 * Access tokens of the mock: opaque random strings with a lifetime on the model clock. The
 * token identifies the client (the rate limiter's key), as the spec says it does. Each starts with
 * MOCK_TOKEN_PREFIX, so a leak scanner (and loadproof's own leak test) can find one anywhere.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';

export const MOCK_TOKEN_PREFIX = 'lpmock_at_';

export interface IssuedToken {
  readonly accessToken: string;
  /** Lifetime in model seconds. */
  readonly expiresInS: number;
}

export type TokenCheck =
  | { readonly ok: true; readonly clientId: string }
  | { readonly ok: false; readonly reason: 'missing' | 'unknown' | 'expired' };

export class TokenStore {
  private readonly tokens = new Map<string, { clientId: string; expiresAtMs: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlS: number,
  ) {}

  issue(clientId: string): IssuedToken {
    const nowMs = this.clock.nowMs();
    if (this.tokens.size >= 10_000) this.purgeExpired(nowMs);
    const accessToken = MOCK_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    this.tokens.set(accessToken, { clientId, expiresAtMs: nowMs + this.ttlS * 1000 });
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

  private purgeExpired(nowMs: number): void {
    for (const [token, entry] of this.tokens) if (nowMs >= entry.expiresAtMs) this.tokens.delete(token);
  }
}
