/** `deid --json`: the result as data; every time field names its clock (a call's round trip is wall time). */
import type { CallRecord } from '../client/index.js';
import type { DeidResult } from './chain.js';

export function deidJson(
  result: DeidResult,
  original: string,
  calls: readonly CallRecord[],
  o: { readonly showValues: boolean; readonly timeScale: number },
) {
  return {
    text: result.text,
    pieces: result.pieces.map((p) => ({ offset: p.offset, length: p.text.length })),
    entities: result.entities.map((e) => ({
      ...e,
      ...(o.showValues ? { value: original.slice(e.start, e.end) } : {}),
    })),
    identifyRequests: result.identifyRequests,
    truncatedPieces: result.truncatedPieces,
    remaining: result.remaining,
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
