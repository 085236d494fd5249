/**
 * Why the first 429 came where it came: the documented bucket replayed plainly (refill at the sustained rate, one
 * token a request) over the requests the service admitted, at their send times, from the start the envelope judged.
 * It tells since when the burst allowance had been used up; the same replay over the plan's arrivals from a full
 * bucket is what `plan` predicted (src/guard/predicted-429.ts replays it so too), and the two side by side explain a
 * difference: the service's own clock, retries, and the requests it admitted or refused on its way.
 */

/** The documented bucket: its capacity (tokens) and refill (requests a minute). */
interface Bucket {
  readonly capacityTokens: number;
  readonly refillRpm: number;
  /** The envelope's margin: fewer than 1 + this many tokens, and the timing cannot tell a token from none. */
  readonly marginTokens: number;
}

export interface First429 {
  /** When the first 429'd attempt was sent (model s from the run start). */
  readonly atS: number;
  readonly phase: string | null;
  /** Tokens the plain replay left at that moment (below 1: the allowance was used up). */
  readonly bucketTokens: number;
  /**
   * Since when the replayed bucket had held fewer than 1 + the margin tokens, without refilling above (model s): the
   * allowance used up, as far as the timing can tell; null when it held more when the 429 came.
   */
  readonly usedUpSinceS: number | null;
  /** The first refusal the plan's arrivals give from a full bucket (what `plan` predicted); null when none. */
  readonly predicted: { readonly atS: number; readonly phase: string | null } | null;
  /**
   * Tokens that replay of the plan held for the same request: the planned arrival after as many as the service had
   * admitted before the first 429 (the refused request, when none was retried).
   */
  readonly predictedTokens: number;
}

/** A token bucket replayed over sorted times: each time takes a token when it has one. */
class Replay {
  tokens: number;
  private lastMs: number;
  constructor(
    private readonly bucket: Bucket,
    startTokens: number,
    startMs: number,
  ) {
    this.tokens = startTokens;
    this.lastMs = startMs;
  }

  /** Refills to `atMs`. */
  advance(atMs: number): void {
    const refill = (this.bucket.refillRpm / 60_000) * Math.max(0, atMs - this.lastMs);
    this.tokens = Math.min(this.bucket.capacityTokens, this.tokens + refill);
    this.lastMs = Math.max(this.lastMs, atMs);
  }

  /** One request at `atMs`: whether it found a token (and took it). */
  take(atMs: number): boolean {
    this.advance(atMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

interface PhaseSpan {
  readonly name: string;
  readonly startMs: number;
  readonly durationMs: number;
}

const phaseAt = (phases: readonly PhaseSpan[], atMs: number): string | null =>
  phases.find((p) => atMs >= p.startMs && atMs < p.startMs + p.durationMs)?.name ?? phases.at(-1)?.name ?? null;

/**
 * The first 429's explanation, or null without a 429. `admittedSentMs`: the send times of the attempts the service did
 * not refuse (sorted); `refusedSentMs`: of those it refused with a 429; `plannedMs`: the plan's arrivals (sorted).
 */
export function explainFirst429(
  bucket: Bucket,
  startTokens: number,
  times: {
    readonly admittedSentMs: ArrayLike<number>;
    readonly refusedSentMs: ArrayLike<number>;
    readonly plannedMs: ArrayLike<number>;
  },
  phases: readonly PhaseSpan[],
): First429 | null {
  let firstMs = Number.POSITIVE_INFINITY;
  let admittedBefore = 0;
  for (let i = 0; i < times.refusedSentMs.length; i++) firstMs = Math.min(firstMs, times.refusedSentMs[i]!);
  if (!Number.isFinite(firstMs)) return null;
  const runStartMs = Math.min(times.admittedSentMs[0] ?? firstMs, firstMs);
  const actual = new Replay(bucket, startTokens, runStartMs);
  let usedUpSinceMs: number | null = null;
  for (let i = 0; i < times.admittedSentMs.length && times.admittedSentMs[i]! < firstMs; i++) {
    actual.take(times.admittedSentMs[i]!);
    admittedBefore++;
    // Since when it stayed under one token: a refill above it starts the count again.
    if (actual.tokens < 1 + bucket.marginTokens) usedUpSinceMs ??= times.admittedSentMs[i]!;
    else usedUpSinceMs = null;
  }
  actual.advance(firstMs);
  if (actual.tokens >= 1 + bucket.marginTokens) usedUpSinceMs = null;
  const plan = new Replay(bucket, bucket.capacityTokens, 0);
  let predictedMs: number | null = null;
  let predictedTokens: number | null = null;
  for (let i = 0; i < times.plannedMs.length; i++) {
    const t = times.plannedMs[i]!;
    if (i === admittedBefore) {
      plan.advance(t);
      predictedTokens = plan.tokens;
    }
    if (!plan.take(t)) predictedMs ??= t;
  }
  // More admitted than planned (retries): the plan's replay at its end.
  predictedTokens ??= plan.tokens;
  return {
    atS: firstMs / 1000,
    phase: phaseAt(phases, firstMs),
    bucketTokens: Math.round(actual.tokens * 10) / 10,
    usedUpSinceS: usedUpSinceMs === null ? null : usedUpSinceMs / 1000,
    predicted: predictedMs === null ? null : { atS: predictedMs / 1000, phase: phaseAt(phases, predictedMs) },
    predictedTokens: Math.round(predictedTokens * 10) / 10,
  };
}
