/**
 * The guard's permit to send (DESIGN.md "Safety": every command that sends asks the guard first).
 * Everything that puts bytes on the wire to a target — a small request (token, stats, one-shot calls),
 * the load's connection pool, the probe's autocannon — takes a SendPermit, and only the guard's
 * `authorize()` (src/guard/permit.ts) issues one, when its decision is "allowed". So code that skips
 * the guard has no permit to give and does not typecheck; test/architecture.test.ts checks that no
 * other module makes one (`issueSendPermit`, `as SendPermit`).
 */
declare const issuedByTheGuard: unique symbol;

export interface SendPermit {
  /** A brand no object literal has: a permit comes from issueSendPermit only. */
  readonly [issuedByTheGuard]: true;
  /** What the guard judged: the environment and the base URL it allowed (undefined: the embedded mock, on loopback). */
  readonly environment: 'mock' | 'sandbox' | 'production';
  readonly baseUrl: string | undefined;
  /** Whether `url` is where the guard allowed traffic to go: the judged origin (or loopback, for the embedded mock). */
  readonly allows: (url: string) => boolean;
}

/** For src/guard only (the architecture test holds it to that): a permit for what the guard allowed. */
export function issueSendPermit(judged: Omit<SendPermit, typeof issuedByTheGuard>): SendPermit {
  return Object.freeze({ ...judged }) as SendPermit;
}

/** Throws (a bug: nothing reaches here without a permit for elsewhere) unless `permit` covers `url`. */
export function checkPermitted(permit: SendPermit, url: string): void {
  if (!permit.allows(url))
    throw new Error(
      `internal: a send to ${new URL(url).origin} that the guard's permit (${permit.environment}${permit.baseUrl === undefined ? ', embedded mock' : ` at ${permit.baseUrl}`}) does not cover`,
    );
}
