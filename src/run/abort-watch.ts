/**
 * k6's abortOnFail, without guessing: a threshold marked so stops the run only once it has failed
 * beyond doubt, whatever the requests still to come do. Counted on the requests the check judges (a
 * phase's steady state), against how many the plan holds there:
 *  - p(q) < X: once more of them are over X than the nearest-rank q-quantile of all the phase's planned
 *    requests leaves room for (more than N − ⌈qN⌉), its q-quantile is over X, with N the plan's (the
 *    bound grows with N, so fewer requests in the sample cannot save it);
 *  - rate(of) < f: once the count reaches f × the planned requests (its base is at most that);
 *  - count(of) < n: once the count reaches n.
 * (`<=` alike, one further.) Only answers are counted over a latency (a request without an answer may
 * yet be recorded otherwise): the watch can only be late, never early. The verdict then judges the same
 * check, on the same requests, as failed.
 */
import type { EventRecord } from '../judge/index.js';
import type { Plan } from '../plan/index.js';
import { FAILED_OUTCOMES } from '../recorder/index.js';
import type { Threshold } from '../scenario/index.js';

/** The thresholds watched as requests end: on the requests' own counts, not on known PHI. */
type RequestThreshold = Exclude<Threshold, { readonly kind: 'phi' }>;

interface Watched {
  readonly phase: number;
  readonly threshold: RequestThreshold;
  /** The count at which the check has failed beyond doubt. */
  readonly failsAt: number;
  count: number;
  failed: boolean;
}

const FAILED = new Set<string>(FAILED_OUTCOMES);

export class AbortWatch {
  private readonly watched: Watched[] = [];
  private readonly steadyFromMs: readonly number[];
  private readonly phaseIndex: ReadonlyMap<string, number>;

  constructor(plan: Plan) {
    const s = plan.scenario;
    this.phaseIndex = new Map(plan.phases.map((p, i) => [p.name, i]));
    this.steadyFromMs = plan.phases.map((p) => p.startMs + p.warmupMs);
    plan.phases.forEach((p, i) => {
      const steadyPlanned = p.arrivalsMs.filter((t) => t >= p.startMs + p.warmupMs).length;
      for (const t of [...s.thresholds.all, ...(s.thresholds.byPhase.get(p.name) ?? [])]) {
        // Known PHI is read once a document is obfuscated, not as requests end (the schema refuses abortOnFail on it).
        if (t.abortOnFail !== true || t.kind === 'phi') continue;
        const orEqual = t.op === '<=' ? 1 : 0;
        const failsAt =
          t.kind === 'percentile'
            ? steadyPlanned - Math.ceil((t.percentile / 100) * steadyPlanned) + 1
            : t.kind === 'rate'
              ? Math.max(
                  1,
                  Math.ceil(t.fraction * steadyPlanned) + (Number.isInteger(t.fraction * steadyPlanned) ? orEqual : 0),
                )
              : t.count + orEqual;
        this.watched.push({ phase: i, threshold: t, failsAt, count: 0, failed: false });
      }
    });
  }

  /** Whether any threshold is watched (none: nothing to do per request). */
  get active(): boolean {
    return this.watched.length > 0;
  }

  /** A request's fate; the reason to stop when a watched check has now failed beyond doubt. */
  record(r: EventRecord): string | undefined {
    const phase = this.phaseIndex.get(r.phase);
    if (phase === undefined || r.intendedAtMs < this.steadyFromMs[phase]!) return undefined;
    for (const w of this.watched) {
      if (w.phase !== phase || w.failed || !counts(w.threshold, r)) continue;
      w.count++;
      if (w.count < w.failsAt) continue;
      w.failed = true;
      return `${r.phase}: ${w.threshold.source} has failed beyond doubt (${w.count} ${describe(w.threshold)}, as many as its phase's planned requests allow): abortOnFail`;
    }
    return undefined;
  }
}

/** Whether the record counts against the threshold. */
function counts(t: RequestThreshold, r: EventRecord): boolean {
  if (t.kind === 'percentile') {
    // The sample the verdict judges: answers other than a first attempt's 429.
    if (r.latencyMs === null || (r.outcome === 'http_429' && r.attempts <= 1)) return false;
    return t.op === '<' ? r.latencyMs >= t.valueMs : r.latencyMs > t.valueMs;
  }
  switch (t.of) {
    case '429':
      return r.outcome === 'http_429';
    case '504':
      return r.outcome === 'http_504';
    case '5xx':
      return r.status !== null && r.status >= 500;
    case 'errors':
      return FAILED.has(r.outcome);
    case 'dropped':
      return r.outcome === 'dropped';
    default: {
      const unreachable: never = t.of;
      throw new Error(`unknown countable ${String(unreachable)}`);
    }
  }
}

const describe = (t: RequestThreshold): string =>
  t.kind === 'percentile' ? `answers at or over ${t.valueMs} ms` : t.kind === 'rate' ? `${t.of}` : `${t.of}`;
