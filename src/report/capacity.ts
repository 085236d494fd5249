/**
 * What a scenario that steps the rate up (capacity-step.yaml) shows about capacity, from summary.json
 * alone: each step's p95 with its 95 % interval against its band's target, and its 429 answers; the
 * highest offered rate whose p95 interval was under its target; when 429s began, at what rate and of
 * which kind. Only what the verdict judged: a step without a documented target says nothing of capacity.
 */
import type { Summary } from '../judge/index.js';

type Window = Summary['timeline'][number];
export type Counts429 = Window['answers429'];

export interface CapacityStep {
  /** The phase, and for a ramp's slice its rates. */
  readonly label: string;
  readonly phase: string;
  readonly fromRpm: number;
  readonly toRpm: number;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  readonly interval: readonly [number | null, number | null] | null;
  /** The documented p95 target of its band (ms), or null. */
  readonly targetMs: number | null;
  /** The verdict of its p95 check, or null without one. */
  readonly status: 'pass' | 'fail' | 'inconclusive' | null;
  /** 429 answers (every attempt) sent while it ran. */
  readonly answers429: Counts429;
  /** Of its phase's requests sent, the share that ended with a 429 (0–1); null when none was sent. */
  readonly ended429: number | null;
  /** 429s on requests the documented limits clearly allow (the phase's). */
  readonly findings: number;
}

export interface Capacity {
  readonly steps: readonly CapacityStep[];
  /** The highest offered rate (the top of its step) whose p95 interval was under its target; null when none was. */
  readonly heldUpToRpm: number | null;
  /** The first step, by rate, whose p95 check failed or could not tell. */
  readonly firstNotHeld: CapacityStep | null;
  /** The first 429 answer's window: its start (model s), phase, offered rate and kinds. */
  readonly onset429: {
    readonly startS: number;
    readonly phase: string | null;
    readonly offeredRpm: number;
    readonly kinds: Counts429;
  } | null;
  readonly findings: number;
  /** The bucket's start the 429s were judged from, in words. */
  readonly startAssumption: string;
}

export const total429 = (c: Counts429): number => c.rateLimit + c.inFlight + c.other;

/**
 * Whether the scenario steps the rate up, as a capacity search does: at least three phases whose rates
 * never go down, with at least three different rates.
 */
function stepsUp(summary: Summary): boolean {
  const rates = summary.phases.map((p) => p.toRpm);
  return (
    rates.length >= 3 &&
    rates.every(
      (r, i) =>
        i === 0 || (r >= summary.phases[i - 1]!.toRpm && summary.phases[i]!.fromRpm >= summary.phases[i - 1]!.fromRpm),
    ) &&
    new Set(rates).size >= 3
  );
}

/** The 429 answers of the given timeline windows, by kind. */
export function sum429(windows: readonly Window[]): Counts429 {
  const sum = { rateLimit: 0, inFlight: 0, other: 0 };
  for (const w of windows) {
    sum.rateLimit += w.answers429.rateLimit;
    sum.inFlight += w.answers429.inFlight;
    sum.other += w.answers429.other;
  }
  return sum;
}

/** The 429 answers of the windows that start from `fromS` to before `toS` (model s). */
const answersIn = (summary: Summary, fromS: number, toS: number): Counts429 =>
  sum429(summary.timeline.filter((w) => w.startS >= fromS && w.startS < toS));

/** The capacity a stepping run shows, or undefined when the scenario does not step the rate up. */
export function capacityOf(summary: Summary): Capacity | undefined {
  if (!stepsUp(summary)) return undefined;
  const shown = (v: number | null | 'unanswered'): number | null => (typeof v === 'number' ? v : null);
  const steps: CapacityStep[] = summary.phases.flatMap((p) =>
    p.bands.map((b) => {
      const check = summary.verdict.checks.find(
        (c) => c.id === 'latency_p95_target' && c.phase === p.name && c.band === b.band,
      );
      const sliced = p.bands.length > 1;
      return {
        label: sliced ? `${p.name} (${b.fromRpm}→${b.toRpm} rpm)` : p.name,
        phase: p.name,
        fromRpm: b.fromRpm,
        toRpm: b.toRpm,
        p50Ms: shown(b.steadyLatencyMs.p50),
        p95Ms: shown(b.steadyLatencyMs.p95),
        interval:
          check?.interval === undefined || check.interval === null
            ? null
            : [shown(check.interval[0] as number | null), shown(check.interval[1] as number | null)],
        targetMs: b.p95Ms,
        status: check === undefined ? null : check.status,
        answers429: answersIn(summary, sliced ? b.startS : p.startS, sliced ? b.endS : p.startS + p.durationS),
        ended429: p.sent === 0 ? null : p.outcomes.http_429 / p.sent,
        findings: p.envelope.findings,
      };
    }),
  );
  const held = steps.filter((s) => s.status === 'pass');
  const byRate = [...steps].sort((a, b) => a.toRpm - b.toRpm);
  const onset = summary.timeline.find((w) => total429(w.answers429) > 0);
  const onsetPhase =
    onset === undefined
      ? undefined
      : summary.phases.find((p) => onset.startS >= p.startS && onset.startS < p.startS + p.durationS);
  return {
    steps,
    heldUpToRpm: held.length === 0 ? null : Math.max(...held.map((s) => s.toRpm)),
    firstNotHeld: byRate.find((s) => s.status === 'fail' || s.status === 'inconclusive') ?? null,
    onset429:
      onset === undefined
        ? null
        : {
            startS: onset.startS,
            phase: onsetPhase?.name ?? null,
            offeredRpm: onset.offeredRpm,
            kinds: onset.answers429,
          },
    findings: summary.phases.reduce((sum, p) => sum + p.envelope.findings, 0),
    startAssumption: summary.envelope.start.assumption,
  };
}
