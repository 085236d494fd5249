/**
 * The "top errors" table (as JMeter's "Top 5 errors" or Gatling's errors): the run's failed requests grouped by
 * status, outcome, error code and normalised message, the largest groups first, each with one sample of what was said.
 * Read from the event records alone, so `loadproof report` rebuilds it; memory is bounded by the number of groups.
 */
import type { CountedOutcome } from '../core/index.js';
import { isErrorOutcome, neutralise } from './error-sample.js';
import type { EventRecord } from './events.js';

/** One row of the table. */
export interface TopError {
  /** The answer's HTTP status; null without an answer (timeout, reset, …). */
  readonly status: number | null;
  readonly outcome: CountedOutcome;
  /** The answer's error code or the client's; null when none. */
  readonly code: string | null;
  readonly count: number;
  /** count ÷ the run's requests sent (4 decimals). */
  readonly share: number;
  /** What was said, masked and neutralised; null when the events kept none. */
  readonly sample: string | null;
}

/** The rows summary.json and the reports show. */
const TOP_ERRORS = 10;
/** The most groups kept apart; failed requests of a later new group are counted as not grouped. */
const MAX_GROUPS = 1000;

interface Group {
  readonly status: number | null;
  readonly outcome: CountedOutcome;
  readonly code: string | null;
  count: number;
  sample: string | null;
}

export class ErrorTally {
  private readonly groups = new Map<string, Group>();
  /** Failed requests past the groups kept: counted, never lumped into a group (they are many different errors). */
  private ungrouped = 0;

  add(record: EventRecord): void {
    if (!isErrorOutcome(record.outcome)) return;
    const code = record.error?.code ?? null;
    const kind = `${record.status ?? ''}|${record.outcome}|${code ?? ''}`;
    const id = `${kind}|${record.error?.key ?? ''}`;
    if (!this.groups.has(id) && this.groups.size >= MAX_GROUPS) {
      this.ungrouped++;
      return;
    }
    let group = this.groups.get(id);
    if (group === undefined) {
      group = { status: record.status, outcome: record.outcome, code, count: 0, sample: null };
      this.groups.set(id, group);
    }
    group.count++;
    // The file is hostile too: a sample read back is neutralised again.
    if (group.sample === null && record.error?.sample !== undefined) group.sample = neutralise(record.error.sample);
  }

  /** Failed requests in none of the groups kept (past MAX_GROUPS distinct errors). */
  get notGrouped(): number {
    return this.ungrouped;
  }

  /** The largest groups, first seen first among equals; `sent`: the run's requests sent. */
  top(sent: number, n = TOP_ERRORS): TopError[] {
    return [...this.groups.values()]
      .sort((a, b) => b.count - a.count)
      .slice(0, n)
      .map((g) => ({
        status: g.status,
        outcome: g.outcome,
        code: g.code,
        count: g.count,
        share: sent === 0 ? 0 : Math.round((g.count / sent) * 10_000) / 10_000,
        sample: g.sample,
      }));
  }
}
