/**
 * loadproof's attempts against a gateway's log, request by request: each attempt loadproof put on the wire
 * (events.ndjson: a planned request's `tries`, attempt n is the n-th) is one identification line of the log with
 * the same x-loadproof-seq and x-loadproof-attempt and the same status; nothing in one is missing from the other.
 */
import { expect } from 'vitest';

import { API_PATHS } from '../../../src/spec/index.js';
import type { GatewayLine } from './access-log.js';

/** What loadproof recorded of each attempt it sent, by `seq/attempt`: its status, null without an answer. */
export function attemptsOf(events: readonly any[]): Map<string, number | null> {
  const attempts = new Map<string, number | null>();
  for (const e of events) e.tries.forEach((t: any, i: number) => attempts.set(`${e.seq}/${i + 1}`, t.status ?? null));
  return attempts;
}

/** The identification lines of a gateway's log, by `seq/attempt`. */
export function identificationLines(lines: readonly GatewayLine[]): GatewayLine[] {
  return lines.filter((l) => l.path === API_PATHS.identification);
}

/** Every disagreement between loadproof's attempts and the gateway's log, said; none is the expected answer. */
export function mismatches(events: readonly any[], lines: readonly GatewayLine[], gateway: string): string[] {
  const ours = attemptsOf(events);
  const theirs = new Map<string, GatewayLine>();
  const found: string[] = [];
  for (const line of identificationLines(lines)) {
    const key = `${line.seq}/${line.attempt}`;
    if (theirs.has(key)) found.push(`${gateway} logged seq/attempt ${key} twice`);
    theirs.set(key, line);
  }
  for (const [key, status] of ours) {
    const logged = theirs.get(key);
    if (logged === undefined)
      found.push(`seq/attempt ${key}: loadproof sent it (${status ?? 'no answer'}), ${gateway} has no line`);
    // An attempt loadproof gave up on (its deadline) is one the gateway saw its client leave.
    else if (status === null ? !logged.clientGaveUp : logged.status !== status)
      found.push(`seq/attempt ${key}: loadproof recorded ${status ?? 'no answer'}, ${gateway} logged ${logged.status}`);
  }
  for (const [key, line] of theirs)
    if (!ours.has(key))
      found.push(`seq/attempt ${key}: ${gateway} logged ${line.status}, loadproof has no such attempt`);
  return found;
}

/**
 * How many of each status, by the tool's events and by the gateway's log (a client gone away counted as null, as
 * loadproof records no status for it): equal when the two reconcile.
 */
export function statusCounts(events: readonly any[], lines: readonly GatewayLine[]): { loadproof: any; gateway: any } {
  const count = (statuses: Iterable<number | null>): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const s of statuses) counts[String(s)] = (counts[String(s)] ?? 0) + 1;
    return counts;
  };
  return {
    loadproof: count(attemptsOf(events).values()),
    gateway: count(identificationLines(lines).map((l) => (l.clientGaveUp ? null : l.status))),
  };
}

/** The gateway logged identification requests, and they agree with loadproof's attempt by attempt, status by status. */
export function expectReconciled(
  run: { summary: any; events: any[]; stderr: string },
  lines: GatewayLine[],
  gateway: string,
): void {
  expect(identificationLines(lines).length).toBeGreaterThan(0);
  expect(mismatches(run.events, lines, gateway)).toEqual([]);
  const counts = statusCounts(run.events, lines);
  expect(counts.loadproof).toEqual(counts.gateway);
}
