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
 *   requests; stretches less than BRIDGED_DIP_MS apart count as one (a dip does not reset the clock);
 * - the longest stretch **at** a rate (the spike rate): a window holding that many requests means
 *   its whole minute was at the rate, so the stretch runs from the first to the last request inside
 *   such windows (1,500 requests at 300 rpm span 4m59.8s; 6 minutes read as 5m59.8s), dips shorter
 *   than BRIDGED_DIP_MS bridged the same way.
 *
 * Two pointers over the arrivals: linear time, no per-millisecond arrays, so plans of millions of
 * arrivals are judged in a blink. Times are whole microseconds (the plan's resolution), so the
 * arithmetic is exact and "exactly 5 minutes" never becomes "more".
 */
import type { Plan } from '../plan/index.js';

/** The sliding window: rates are requests per minute (ms). */
export const WINDOW_MS = 60_000;

/**
 * Stretches this close (ms) count as one, and the dip between them counts in the stretch: traffic
 * that is back above the rate within a minute never really left it. Ten repeats of 5 minutes at
 * 300 rpm and 1 minute at 200 are one hour above 200 rpm.
 */
export const BRIDGED_DIP_MS = 60_000;

const US_PER_MS = 1000;
const WINDOW_US = WINDOW_MS * US_PER_MS;
const BRIDGED_DIP_US = BRIDGED_DIP_MS * US_PER_MS;

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
export interface TrafficMeasures {
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
export function worstCaseFactor(plan: Plan): number {
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

/** Intervals [start, end] in µs, ascending by start, merged when less than BRIDGED_DIP_US apart; the longest. */
class LongestRun {
  private best: [number, number] | undefined;
  private current: [number, number] | undefined;

  add(start: number, end: number): void {
    if (this.current !== undefined && start - this.current[1] < BRIDGED_DIP_US) {
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
    if (this.current !== undefined && (this.best === undefined || this.current[1] - this.current[0] > this.best[1] - this.best[0])) this.best = this.current;
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
function peak(times: Float64Array, factor: number): { requests: number; startUs: number | undefined } {
  let best = 0;
  let startUs: number | undefined;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + WINDOW_US) j++;
    if (j - i > best) {
      best = j - i;
      startUs = times[i]!;
    }
  }
  return { requests: best * factor, startUs };
}

/**
 * Subtleness ahead: the window [t − 60 s, t) holds arrivals j−m+1 … j (m of them, j the last before
 * t) exactly when t is in (t_j, t_{j−m+1} + 60 s]. So the times above `rpm` are the union of those
 * intervals, with m the fewest arrivals that make more than `rpm` requests; their starts ascend.
 */
function longestAbove(times: Float64Array, factor: number, rpm: number): [number, number] | undefined {
  const m = Math.floor(rpm / factor) + 1;
  const run = new LongestRun();
  for (let j = m - 1; j < times.length; j++) {
    const end = times[j - m + 1]! + WINDOW_US;
    if (end > times[j]!) run.add(times[j]!, end);
  }
  return run.result();
}

/**
 * The windows [t_i, t_i + 60 s) holding at least `rpm` requests, as the requests they hold: from
 * the first to the last arrival inside them. Consecutive windows overlap, so their arrivals join
 * into one run; runs less than BRIDGED_DIP_MS apart join too.
 */
function longestAt(times: Float64Array, factor: number, rpm: number): [number, number] | undefined {
  const m = Math.ceil(rpm / factor);
  const run = new LongestRun();
  for (let i = 0, j = 0; i + m <= times.length; i++) {
    // j: the first arrival at or after the end of the window starting at arrival i.
    while (j < times.length && times[j]! < times[i]! + WINDOW_US) j++;
    if (j - i >= m) run.add(times[i]!, times[j - 1]!);
  }
  return run.result();
}

/** The plan's traffic, as the guard judges it: `aboveRpm` is the coordination rate, `atRpm` the spike rate. */
export function measureTraffic(plan: Plan, rates: { readonly aboveRpm: number; readonly atRpm: number }): TrafficMeasures {
  const factor = worstCaseFactor(plan);
  const times = arrivalTimesUs(plan);
  const top = peak(times, factor);
  return {
    worstCaseFactor: factor,
    peakRpm: top.requests,
    peakMinuteStartMs: top.startUs === undefined ? null : top.startUs / US_PER_MS,
    longestAbove: stretchOf(longestAbove(times, factor, rates.aboveRpm), plan, true),
    longestAt: stretchOf(longestAt(times, factor, rates.atRpm), plan, true),
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
