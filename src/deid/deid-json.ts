/** `deid --json`: the result as data; every time field names its clock (a call's round trip is wall time). */
import type { CallRecord } from '../client/index.js';
import type { DeidResult } from './chain.js';
import type { DeidRecall } from './deid-recall.js';

interface JsonOptions {
  readonly showValues: boolean;
  readonly timeScale: number;
  /** Recall on known PHI (--expect); undefined without it. */
  readonly recall: DeidRecall | undefined;
  /** The mock's caveat, null against a real target. */
  readonly mockCaveat: string | null;
}

export function deidJson(result: DeidResult, original: string, calls: readonly CallRecord[], o: JsonOptions) {
  const value = (start: number, end: number) => (o.showValues ? { value: original.slice(start, end) } : {});
  return {
    text: result.text,
    pieces: result.pieces.map((p) => ({ offset: p.offset, length: p.text.length })),
    entities: result.entities.map((e) => ({ ...e, ...value(e.start, e.end) })),
    identifyRequests: result.identifyRequests,
    truncatedPieces: result.truncatedPieces,
    foundStillPresent: result.foundStillPresent,
    // Null without --expect: what identification missed cannot be known then.
    phi:
      o.recall === undefined
        ? null
        : {
            ...o.recall.tally,
            // Where each item left in clear is, never its text (unless --show-values).
            leftInClear: o.recall.leftInClear.map((i) => ({ ...i, ...value(i.start, i.end) })),
          },
    mockCaveat: o.mockCaveat,
    // The calls' round trips are measured on the wall clock: at time scale k the mock answered k times fast.
    timeScale: o.timeScale,
    calls: calls.map((c) => ({
      endpoint: c.endpoint,
      status: c.status,
      latencyWallMs: Math.round(c.latencyMs * 1000) / 1000,
      attempts: c.attempts,
      without429RetryAfter: c.without429RetryAfter,
    })),
  };
}
