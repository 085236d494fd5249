/**
 * The traffic a plan can send, as the guard judges it: the planned arrivals themselves (not the
 * rates the phases declare), each counted as many times as it may be sent in the worst case, in
 * sliding 60-second windows. Rates are per minute, so "the rate at t" is the number of requests in
 * the window [t − 60 s, t). From the arrivals, sorted across the whole plan:
 *
 * - the **peak**: the most requests in any window (half-open: 300 rpm evenly spaced gives exactly
 *   300; a window that starts at an arrival holds at least as much as any other, so only those are
 *   counted);
 * - the longest stretch **above** a rate: the times t whose window holds more than that many
 *   requests; stretches closer than the rule's own limit (5 minutes) count as one: a dip resets the
 *   clock only when it lasts as long as the rule's period;
 * - the longest stretch **at** a rate (the spike rate): a window holding that many requests means
 *   its whole minute was at the rate, so the stretch runs from the first to the last request inside
 *   such windows (1,500 requests at 300 rpm span 4m59.8s; 6 minutes read as 5m59.8s), dips shorter
 *   than the spike's own limit bridged the same way.
 *
 * With `on429: retry`, attempt k of an arrival at t may land anywhere up to (k − 1) × (timeout +
 * maxDelay) after it, so each minute is judged on every attempt that could land in it: each arrival
 * counts once for each attempt in windows stretched by that spread (a sweep over the counts).
 *
 * Two pointers over the arrivals: linear time, no per-millisecond arrays, so plans of millions of
 * arrivals are judged in a blink. Times are whole microseconds (the plan's resolution), so the
 * arithmetic is exact and "exactly 5 minutes" never becomes "more".
 */
import type { Plan } from '../plan/index.js';

/** The sliding window: rates are requests per minute (ms). */
export const WINDOW_MS = 60_000;

const US_PER_MS = 1000;
const WINDOW_US = WINDOW_MS * US_PER_MS;

/** A stretch of the plan's timeline (model ms from the run start). */
export interface Stretch {
  readonly startMs: number;
  readonly endMs: number;
  /** endMs − startMs, exact to the microsecond. */
  readonly durationMs: number;
  /** The phases the stretch overlaps, in order. */
  readonly phases: readonly string[];
}

/** What the guard measures on a plan's arrivals. Request counts include the worst-case factor. */
interface TrafficMeasures {
  /** How many times each arrival is counted (see worstCaseFactor). */
  readonly worstCaseFactor: number;
  /** The most requests in any 60 s window (requests per minute). */
  readonly peakRpm: number;
  /** Where the first such window starts (model ms); null for a plan without arrivals. */
  readonly peakMinuteStartMs: number | null;
  /** The longest stretch whose trailing minute holds more than `aboveRpm` requests, or null. */
  readonly longestAbove: Stretch | null;
  /** The longest stretch at `atRpm` (windows holding at least that many requests), or null. */
  readonly longestAt: Stretch | null;
}

/**
 * How many times each arrival may be sent: with `on429: retry`, maxAttempts (the client counts the
 * resend after a token renewal as one of those attempts); with `record`, once (no retry, no resend).
 */
function worstCaseFactor(plan: Plan): number {
  const on429 = plan.scenario.on429;
  return on429.policy === 'retry' ? on429.maxAttempts : 1;
}

/** Every planned arrival in whole microseconds, ascending (the plan's order; sorted anyway if a plan is not). */
function arrivalTimesUs(plan: Plan): Float64Array {
  const times = new Float64Array(plan.phases.reduce((n, p) => n + p.arrivalsMs.length, 0));
  let i = 0;
  let sorted = true;
  for (const phase of plan.phases) {
    for (const t of phase.arrivalsMs) {
      times[i] = Math.round(t * US_PER_MS);
      if (i > 0 && times[i]! < times[i - 1]!) sorted = false;
      i++;
    }
  }
  return sorted ? times : times.sort();
}

/** Intervals [start, end] in µs, ascending by start, merged when less than `bridgeUs` apart; the longest. */
class LongestRun {
  private best: [number, number] | undefined;
  private current: [number, number] | undefined;

  constructor(private readonly bridgeUs: number) {}

  add(start: number, end: number): void {
    if (this.current !== undefined && start - this.current[1] < this.bridgeUs) {
      this.current[1] = Math.max(this.current[1], end);
      return;
    }
    this.close();
    this.current = [start, end];
  }

  result(): [number, number] | undefined {
    this.close();
    return this.best;
  }

  private close(): void {
    if (
      this.current !== undefined &&
      (this.best === undefined || this.current[1] - this.current[0] > this.best[1] - this.best[0])
    )
      this.best = this.current;
  }
}

function stretchOf(run: [number, number] | undefined, plan: Plan, endInclusive: boolean): Stretch | null {
  if (run === undefined) return null;
  const [startUs, endUs] = run;
  const startMs = startUs / US_PER_MS;
  const endMs = endUs / US_PER_MS;
  const phases = plan.phases
    .filter((p) => p.startMs + p.durationMs > startMs && (endInclusive ? p.startMs <= endMs : p.startMs < endMs))
    .map((p) => p.name);
  return { startMs, endMs, durationMs: (endUs - startUs) / US_PER_MS, phases };
}

/**
 * The peak, and where its window starts: for each arrival i, the requests in [t_i, t_i + 60 s).
 */
/** The most planned first attempts in any 60 s window (requests per minute), retries not counted. */
export function plannedPeakRpm(plan: Plan): number {
  return peak(arrivalTimesUs(plan)).requests;
}

function peak(times: Float64Array): { requests: number; startUs: number | undefined } {
  let best = 0;
  let startUs: number | undefined;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + WINDOW_US) j++;
    if (j - i > best) {
      best = j - i;
      startUs = times[i]!;
    }
  }
  return { requests: best, startUs };
}

/**
 * Subtleness ahead: the window [t − 60 s, t) holds arrivals j−m+1 … j (m of them, j the last before
 * t) exactly when t is in (t_j, t_{j−m+1} + 60 s]. So the times above `rpm` are the union of those
 * intervals, with m the fewest arrivals that make more than `rpm` requests; their starts ascend.
 */
function longestAbove(times: Float64Array, rpm: number, bridgeUs: number): [number, number] | undefined {
  const m = Math.floor(rpm) + 1;
  const run = new LongestRun(bridgeUs);
  for (let j = m - 1; j < times.length; j++) {
    const end = times[j - m + 1]! + WINDOW_US;
    if (end > times[j]!) run.add(times[j]!, end);
  }
  return run.result();
}

/**
 * The windows [t_i, t_i + 60 s) holding at least `rpm` requests, as the requests they hold: from
 * the first to the last arrival inside them. Consecutive windows overlap, so their arrivals join
 * into one run; runs less than `bridgeUs` apart join too.
 */
function longestAt(times: Float64Array, rpm: number, bridgeUs: number): [number, number] | undefined {
  const m = Math.ceil(rpm);
  const run = new LongestRun(bridgeUs);
  for (let i = 0, j = 0; i + m <= times.length; i++) {
    // j: the first arrival at or after the end of the window starting at arrival i.
    while (j < times.length && times[j]! < times[i]! + WINDOW_US) j++;
    if (j - i >= m) run.add(times[i]!, times[j - 1]!);
  }
  return run.result();
}

/**
 * With retries: the worst-case count of requests in the minute before each moment, as a step
 * function. Arrival i counts once for each attempt k = 1…K on [t_i, t_i + 60 s + (k − 1)·spread):
 * attempt k may land anywhere up to (k − 1)·spread after the arrival, so it can fall in the minute
 * before any moment of that span. Calls `step(from, to, count)` for each step, in time order; a merge
 * of K + 1 sorted event streams, so linear in K × arrivals.
 */
function sweepWithRetries(
  times: Float64Array,
  attempts: number,
  spreadUs: number,
  step: (fromUs: number, toUs: number, count: number) => void,
): void {
  const n = times.length;
  const lengths = Array.from({ length: attempts }, (_, k) => WINDOW_US + k * spreadUs);
  const ends = lengths.map(() => 0);
  let next = 0;
  let count = 0;
  let at = Number.NEGATIVE_INFINITY;
  for (;;) {
    let t = next < n ? times[next]! : Number.POSITIVE_INFINITY;
    for (let k = 0; k < attempts; k++) if (ends[k]! < n) t = Math.min(t, times[ends[k]!]! + lengths[k]!);
    if (t === Number.POSITIVE_INFINITY) return;
    if (count > 0) step(at, t, count);
    while (next < n && times[next] === t) {
      count += attempts;
      next++;
    }
    for (let k = 0; k < attempts; k++) {
      while (ends[k]! < n && times[ends[k]!]! + lengths[k]! === t) {
        count--;
        ends[k]!++;
      }
    }
    at = t;
  }
}

/**
 * The plan's traffic, as the guard judges it: above `aboveRpm` for at most `aboveLimitMs`, at `atRpm` for at most
 * `atLimitMs`.
 */
export function measureTraffic(
  plan: Plan,
  rates: {
    readonly aboveRpm: number;
    readonly aboveLimitMs: number;
    readonly atRpm: number;
    readonly atLimitMs: number;
  },
): TrafficMeasures {
  const factor = worstCaseFactor(plan);
  const times = arrivalTimesUs(plan);
  const aboveBridge = rates.aboveLimitMs * US_PER_MS;
  const atBridge = rates.atLimitMs * US_PER_MS;
  if (factor === 1) {
    const top = peak(times);
    return {
      worstCaseFactor: 1,
      peakRpm: top.requests,
      peakMinuteStartMs: top.startUs === undefined ? null : top.startUs / US_PER_MS,
      longestAbove: stretchOf(longestAbove(times, rates.aboveRpm, aboveBridge), plan, true),
      longestAt: stretchOf(longestAt(times, rates.atRpm, atBridge), plan, true),
    };
  }
  const { on429, timeoutMs } = plan.scenario;
  const above = new LongestRun(aboveBridge);
  const at = new LongestRun(atBridge);
  let peakCount = 0;
  let peakEndUs: number | undefined;
  sweepWithRetries(times, factor, (timeoutMs + on429.maxDelayMs) * US_PER_MS, (fromUs, toUs, count) => {
    if (count > peakCount) {
      peakCount = count;
      peakEndUs = fromUs;
    }
    if (count > rates.aboveRpm) above.add(fromUs, toUs);
    // The minute before a moment that holds the spike rate was at the spike rate.
    if (count >= rates.atRpm) at.add(Math.max(0, fromUs - WINDOW_US), toUs);
  });
  return {
    worstCaseFactor: factor,
    peakRpm: peakCount,
    peakMinuteStartMs: peakEndUs === undefined ? null : Math.max(0, peakEndUs - WINDOW_US) / US_PER_MS,
    longestAbove: stretchOf(above.result(), plan, true),
    longestAt: stretchOf(at.result(), plan, true),
  };
}

/**
 * A span or a model time (ms) for messages, to the millisecond: 4m59.6s, 1h, 0s. Rounded up, so a
 * span judged more than 5 minutes never reads as 5m.
 */
export function formatSpanMs(ms: number): string {
  const whole = Math.ceil(Math.round(ms * US_PER_MS) / US_PER_MS);
  const h = Math.floor(whole / 3_600_000);
  const m = Math.floor((whole % 3_600_000) / 60_000);
  const sec = (whole % 60_000) / 1000;
  const text = `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${sec > 0 ? `${sec}s` : ''}`;
  return text === '' ? '0s' : text;
}
