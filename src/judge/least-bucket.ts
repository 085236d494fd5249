/**
 * least(τ) of the envelope's rule (see envelope.ts), in closed form, over the admitted attempts' send times and the
 * latest each may have arrived (both sorted).
 */
import { countAtMost, countBelow } from '../core/index.js';
import type { AdmittedTimes } from '../recorder/index.js';

/**
 * least(τ) = min(full(τ), fromStart(τ)), where
 *   full(τ)      = min(capacity, capacity + refill·τ − A(τ) + min(P(τ), E(τ) − refill·τ))
 *   fromStart(τ) = refill·τ − A(τ) + max(startTokens − refill·T0, Q(τ))
 * with A(τ) the admitted sends at or before τ, E(τ) the answers before τ, P(τ) the least of
 * (answers before e) − refill·e over the answers e before τ, and Q(τ) the most of (answers at or before e)
 * − refill·e over the answers e at or before τ. For full(τ) the minimum over s is reached just before an
 * answer, or just before τ (where it is capacity − the attempts in flight); for fromStart(τ) the maximum
 * over anchors is at T0 or at an answer (empty then). Between two sends least(τ) never falls, so its least
 * over a window is at the window's start or at a send inside it: those are looked up by blocks of minima.
 */
export class LeastBucket {
  /** P, indexed by how many answers came before: prefixLeast[k] over the first k answers. */
  private readonly prefixLeast: Float64Array;
  /** Q, indexed by how many answers came at or before: prefixMost[k] over the first k answers, the start's included. */
  private readonly prefixMost: Float64Array;
  /** least() at each send (the sends being sorted), and its minimum per block of BLOCK sends. */
  private readonly atSend: Float64Array;
  private readonly blockLeast: Float64Array;
  private static readonly BLOCK = 256;

  /**
   * `startTokens`: what the bucket surely held at `firstSendMs`, the run's first send (429s included); at capacity the
   * start bound never binds.
   */
  constructor(
    private readonly times: AdmittedTimes,
    private readonly capacity: number,
    private readonly refillPerMs: number,
    startTokens: number,
    firstSendMs: number,
  ) {
    const ends = times.endAtMs;
    this.prefixLeast = new Float64Array(ends.length + 1);
    this.prefixLeast[0] = Number.POSITIVE_INFINITY;
    this.prefixMost = new Float64Array(ends.length + 1);
    this.prefixMost[0] = startTokens - refillPerMs * firstSendMs;
    // k answers came before ends[k] (for tied answers the prefix minimum keeps the first, whose count is right);
    // k + 1 came at or before it (the prefix maximum keeps the last of tied answers, whose count is right).
    for (let k = 0; k < ends.length; k++) {
      this.prefixLeast[k + 1] = Math.min(this.prefixLeast[k]!, k - refillPerMs * ends[k]!);
      this.prefixMost[k + 1] = Math.max(this.prefixMost[k]!, k + 1 - refillPerMs * ends[k]!);
    }
    const sends = times.sentAtMs;
    this.atSend = Float64Array.from(sends, (t) => this.at(t));
    this.blockLeast = new Float64Array(Math.ceil(sends.length / LeastBucket.BLOCK)).fill(Number.POSITIVE_INFINITY);
    for (let i = 0; i < sends.length; i++) {
      const b = Math.floor(i / LeastBucket.BLOCK);
      this.blockLeast[b] = Math.min(this.blockLeast[b]!, this.atSend[i]!);
    }
  }

  /** least(τ). */
  at(atMs: number): number {
    const ends = this.times.endAtMs;
    const sent = countAtMost(this.times.sentAtMs, atMs);
    const answered = countBelow(ends, atMs);
    const inner = Math.min(this.prefixLeast[answered]!, answered - this.refillPerMs * atMs);
    const full = Math.min(this.capacity, this.capacity + this.refillPerMs * atMs - sent + inner);
    const fromStart = this.refillPerMs * atMs - sent + this.prefixMost[countAtMost(ends, atMs)]!;
    return Math.min(full, fromStart);
  }

  /** The least of least(τ) over τ in [fromMs, toMs]. */
  over(fromMs: number, toMs: number): number {
    let result = this.at(fromMs);
    const sends = this.times.sentAtMs;
    let i = countAtMost(sends, fromMs);
    const end = countAtMost(sends, toMs);
    const B = LeastBucket.BLOCK;
    while (i < end) {
      if (i % B === 0 && i + B <= end) {
        result = Math.min(result, this.blockLeast[i / B]!);
        i += B;
      } else {
        result = Math.min(result, this.atSend[i]!);
        i++;
      }
    }
    return result;
  }
}
