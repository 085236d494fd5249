/**
 * What a run shows a scraper while it runs (`run --metrics-port`): requests by outcome and by status,
 * requests sent, arrivals due and in flight, the offered and achieved rates, the generator's send lag and
 * latency as histograms. All of it is read from what the run records (each request's event record, as
 * events.ndjson has it) and from the plan: it measures nothing of its own and changes nothing measured.
 */
import { isUnanswered, type TimeScale } from '../../core/index.js';
import { countedLatencyMs, type EventRecord } from '../../judge/index.js';
import { arrivalsDueBy, type Plan, rateAt } from '../../plan/index.js';
import type { Family, HistogramSample, Labels, Sample } from './exposition.js';
import { LastMinute } from './last-minute.js';

/** Latency buckets (model seconds): around the spec's p95 targets (2.5, 4, 5 s) and its 15 s timeout. */
const LATENCY_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 15, 20, 30];
/** Send-lag buckets (wall seconds): the generator's own lateness, 5 ms being the budget the benches hold it to. */
const SEND_LAG_BUCKETS_S = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

class Histogram {
  private readonly counts: number[];
  count = 0;
  sum = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }
  observe(v: number): void {
    this.count++;
    // No answer is worse than any bound: +Inf only, and not in the sum, which it would swamp.
    if (v === Infinity) return;
    this.sum += v;
    const i = this.bounds.findIndex((b) => v <= b);
    if (i >= 0) this.counts[i]!++;
  }
  sample(labels: Labels): HistogramSample {
    let running = 0;
    return {
      labels,
      bounds: this.bounds,
      cumulative: this.counts.map((c) => (running += c)),
      count: this.count,
      sum: this.sum,
    };
  }
}

interface RunMetricsInfo {
  readonly scenario: string;
  readonly environment: string;
  readonly timeScale: TimeScale;
}

export class RunMetrics {
  private readonly outcomes = new Map<string, number>();
  private readonly statuses = new Map<string, number>();
  private readonly sent = new Map<string, number>();
  private readonly latency = new Histogram(LATENCY_BUCKETS_S);
  private readonly sendLag = new Histogram(SEND_LAG_BUCKETS_S);
  /** Requests with a known fate by the model second they were sent in: the achieved rate. */
  private readonly sends = new LastMinute();
  /** Of those, the ones answered 2xx (outcome ok): the goodput, as summary.json's goodputRpm counts it. */
  private readonly goodput = new LastMinute();
  private resolved = 0;
  /** The run's t = 0 on its clock (model ms), and that clock; undefined until the schedule starts. */
  private startMs: number | undefined;
  private nowMs: () => number = () => 0;

  constructor(
    private readonly plan: Plan,
    private readonly info: RunMetricsInfo,
  ) {}

  /** The schedule's t = 0 on the run's model clock, and that clock. */
  start(startMs: number, nowMs: () => number): void {
    this.startMs = startMs;
    this.nowMs = nowMs;
  }

  /** A request's fate, as the run records it. */
  record(r: EventRecord): void {
    this.resolved++;
    bump(this.outcomes, key(r.phase, r.outcome));
    if (r.status !== null) bump(this.statuses, key(r.phase, String(r.status)));
    // Before the return below: a dropped request counts, as no answer.
    this.recordLatency(r);
    if (r.outcome === 'dropped' || r.outcome === 'unsent' || r.firedAtMs === null) return;
    bump(this.sent, key(r.phase));
    this.sends.add(r.firedAtMs);
    if (r.outcome === 'ok') this.goodput.add(r.firedAtMs);
    // As summary.json's sendLagMs: from when the request was free to go (a held deid piece: its readyAtMs).
    const lagMs = Math.max(0, r.firedAtMs - (r.readyAtMs ?? r.intendedAtMs));
    this.sendLag.observe(this.info.timeScale.toWallMs(lagMs) / 1000);
  }

  /** A request's latency as the definition counts it; an unanswered one in +Inf. */
  private recordLatency(r: EventRecord): void {
    const latencyMs = countedLatencyMs(r);
    if (latencyMs !== undefined) this.latency.observe(isUnanswered(latencyMs) ? Infinity : latencyMs / 1000);
  }

  families(): Family[] {
    const now = this.snapshot();
    return [
      this.infoFamily(),
      ...progressFamilies(now),
      ...this.countFamilies(now.due),
      ...this.rateFamilies(now),
      ...this.histogramFamilies(),
    ];
  }

  /** Where the schedule is now; drops the sends more than a minute old on the way. */
  private snapshot(): Snapshot {
    const elapsedMs = this.startMs === undefined ? 0 : Math.max(0, this.nowMs() - this.startMs);
    const due = this.startMs === undefined ? 0 : arrivalsDueBy(this.plan, elapsedMs);
    const phase =
      this.startMs === undefined
        ? undefined
        : (this.plan.phases.find((p) => elapsedMs < p.startMs + p.durationMs) ?? undefined);
    return {
      elapsedMs,
      due,
      phase,
      sentRpm: this.sends.perMinute(elapsedMs),
      goodputRpm: this.goodput.perMinute(elapsedMs),
    };
  }

  private infoFamily(): Family {
    return {
      name: 'loadproof_run_info',
      type: 'gauge',
      help: 'The run: its scenario, environment, time scale and shard (1).',
      samples: [
        {
          labels: {
            scenario: this.info.scenario,
            environment: this.info.environment,
            time_scale: String(this.info.timeScale.k),
            shard: this.plan.shard === undefined ? '' : `${this.plan.shard.index}/${this.plan.shard.count}`,
          },
          value: 1,
        },
      ],
    };
  }

  private countFamilies(due: number): Family[] {
    return [
      {
        name: 'loadproof_requests',
        type: 'counter',
        help: 'Requests whose fate is known, by phase and outcome (ok, http_429, http_504, http_5xx, timeout, stale_connection, dropped, unsent, …).',
        samples: labelledSamples(this.outcomes, ['phase', 'outcome']),
      },
      {
        name: 'loadproof_responses',
        type: 'counter',
        help: 'Final answers, by phase and HTTP status.',
        samples: labelledSamples(this.statuses, ['phase', 'status']),
      },
      {
        name: 'loadproof_requests_sent',
        type: 'counter',
        help: 'Requests sent, by phase, counted once their fate is known.',
        samples: labelledSamples(this.sent, ['phase']),
      },
      {
        name: 'loadproof_requests_in_flight',
        type: 'gauge',
        help: 'Arrivals due whose fate is not known yet: sent and awaiting an answer, or late to be sent.',
        samples: [{ labels: {}, value: Math.max(0, due - this.resolved) }],
      },
    ];
  }

  private rateFamilies({ elapsedMs, phase, sentRpm, goodputRpm }: Snapshot): Family[] {
    // A shard offers its share of the phase's rate.
    const share = this.plan.shard?.count ?? 1;
    return [
      {
        name: 'loadproof_offered_requests_per_minute',
        type: 'gauge',
        help: 'The rate the plan offers now (model time).',
        samples: [
          { labels: { phase: phase?.name ?? '' }, value: phase === undefined ? 0 : rateAt(phase, elapsedMs) / share },
        ],
      },
      {
        name: 'loadproof_achieved_requests_per_minute',
        type: 'gauge',
        help: 'Requests sent in the last model minute, counted once their fate is known (so it trails by the latency).',
        samples: [{ labels: {}, value: sentRpm }],
      },
      {
        name: 'loadproof_goodput_requests_per_minute',
        type: 'gauge',
        help: 'Of the requests sent in the last model minute, those answered 2xx: the goodput (model time; it trails by the latency).',
        samples: [{ labels: {}, value: goodputRpm }],
      },
      {
        name: 'loadproof_time_scale',
        type: 'gauge',
        help: "Model seconds a wall second (the run's time scale k): a rate() per wall second divided by it is per model second.",
        samples: [{ labels: {}, value: this.info.timeScale.k }],
      },
    ];
  }

  private histogramFamilies(): Family[] {
    return [
      {
        name: 'loadproof_send_lag_seconds',
        type: 'histogram',
        unit: 'seconds',
        help: "How late each request was sent after its intended time (wall seconds): the generator's own lateness.",
        samples: [this.sendLag.sample({})],
      },
      // One histogram for the run, not one per phase: histogram_quantile over a recent range reads the phase running
      // now.
      {
        name: 'loadproof_request_latency_seconds',
        type: 'histogram',
        unit: 'seconds',
        help: 'Latency as the run defines it (model seconds): from the intended send to the end of the answer, of every request except those answered 429 at once; dropped and unanswered requests count in +Inf only (not in the sum).',
        samples: [this.latency.sample({})],
      },
    ];
  }
}

interface Snapshot {
  /** Model time since the schedule started. */
  readonly elapsedMs: number;
  readonly due: number;
  readonly phase: Plan['phases'][number] | undefined;
  /** Requests sent in the last model minute, and of those the ones answered 2xx (a model minute). */
  readonly sentRpm: number;
  readonly goodputRpm: number;
}

function progressFamilies({ elapsedMs, due }: Snapshot): Family[] {
  return [
    {
      name: 'loadproof_model_time_seconds',
      type: 'gauge',
      unit: 'seconds',
      help: 'Model time since the schedule started.',
      samples: [{ labels: {}, value: elapsedMs / 1000 }],
    },
    {
      name: 'loadproof_arrivals_due',
      type: 'counter',
      help: 'Arrivals the plan had due by now: what was offered.',
      samples: [{ labels: {}, value: due }],
    },
  ];
}

/** One sample per label set, its labels read back from the map's key. */
function labelledSamples(m: Map<string, number>, names: string[]): Sample[] {
  return [...m].map(([k, value]) => ({
    labels: Object.fromEntries((JSON.parse(k) as string[]).map((v, i) => [names[i]!, v])),
    value,
  }));
}

/** A map key for a label set. */
const key = (...parts: string[]): string => JSON.stringify(parts);

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}
