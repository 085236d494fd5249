/**
 * The spec requires `Retry-After` (whole seconds) on every 429. A 429 without one is judged like any other (the
 * envelope counts it, a retry backs off instead), so nothing else would say the service missed its spec there: a
 * note does, per phase. A note, not a check: the verdict is about what the service let through and how fast, and
 * a missing header changes neither.
 */
import type { PhaseInput } from './verdict-input.js';

/** One note per phase that had 429 answers without Retry-After. */
export function retryAfterNotes(phases: readonly Pick<PhaseInput, 'name' | 'all' | 'envelope'>[]): string[] {
  return phases.flatMap((p) => {
    const missing = p.all.http429WithoutRetryAfter;
    if (missing === 0) return [];
    return [
      `phase ${p.name}: ${missing} of ${p.envelope.http429} 429 answers came without a Retry-After in whole seconds, which the spec requires on every 429: the service does not meet its spec there (noted; it fails no check)`,
    ];
  });
}
