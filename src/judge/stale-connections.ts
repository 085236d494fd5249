/**
 * Requests lost to a stale connection (stale_connection: a kept-alive connection the server had closed while it sat
 * idle, and our request crossed the close) are the client's, not the service's: the service may never have seen
 * them, so what it would have answered is unknown. They are not errors, and they count as unanswered in latency (the
 * worst case). A check is judged as it stands and again as if they had gone the other way; where those two differ,
 * the stale connections could have decided it, and it is inconclusive, like a fail that rests on the client's drops.
 */
import type { Slice } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';
import { type Check, compare } from './check.js';
import { answeredCount } from './percentile-check.js';
import { countOf } from './threshold-check.js';

const WHAT =
  'lost to stale connections (kept-alive connections the server had closed while idle: the client’s, not the service’s)';

/** A count or rate of errors that the stale requests, had they all failed, would judge the other way. */
export function staleErrorsCheck(check: Check, slice: Slice, t: Threshold): Check {
  const stale = slice.outcomes.stale_connection;
  if (
    stale === 0 ||
    check.status === 'inconclusive' ||
    t.kind === 'percentile' ||
    t.kind === 'phi' ||
    t.of !== 'errors'
  )
    return check;
  const { count, base } = countOf(slice, 'errors');
  const asFailed =
    t.kind === 'count' ? compare(count + stale, t.op, t.count) : compare((count + stale) / base, t.op, t.fraction);
  if (asFailed === (check.status === 'pass')) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but ${stale} requests were ${WHAT}; counted as errors they would ${check.status === 'pass' ? 'fail' : 'pass'} it`,
  };
}

/**
 * A latency fail that rests on unanswered requests (`onUnanswered`) and would not without the stale ones: the
 * percentile's rank, over the other requests, falls among the answers (which restsOnUnanswered found under target).
 */
export function staleLatencyCheck(check: Check, slice: Slice, onUnanswered: boolean, percentile = 95): Check {
  const stale = slice.outcomes.stale_connection;
  if (stale === 0 || check.status !== 'fail' || !onUnanswered) return check;
  const h = slice.latencyExcl429;
  if (Math.ceil((percentile / 100) * (h.count - stale)) > answeredCount(h)) return check;
  return {
    ...check,
    status: 'inconclusive',
    reason: `${check.reason}, but it rests on ${stale} requests ${WHAT}, counted as unanswered: without them p(${percentile}) falls among the answers`,
  };
}

/** A note for each phase with stale connections: how many, and that they are not counted against the service. */
export function staleNotes(phases: readonly { readonly name: string; readonly all: Slice }[]): string[] {
  return phases.flatMap((p) => {
    const stale = p.all.outcomes.stale_connection;
    if (stale === 0) return [];
    return [
      `phase ${p.name}: ${stale} of ${p.all.sent} requests were ${WHAT}: not counted as errors, unanswered in latency; a check they could have decided is inconclusive (set target.idleConnection under the server's keep-alive timeout)`,
    ];
  });
}
