/**
 * What a run that steps the rate up shows of capacity: the highest rate the service served within its target, and
 * the goodput plateau (the rate it accepted whatever was offered). A step holds only when its p95 check passed (the
 * interval under the target) and the share of its requests that ended with a 429 is at most the share the reader
 * chose: a step whose requests were refused was not served, however fast the few answers came.
 */

import { UsageError } from '../core/index.js';

/** `--capacity-429-share`: a fraction from 0 to 1. */
export function parseCapacity429Share(flag: string, text: string): number {
  const value = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 1))
    throw new UsageError(
      `${flag}: expected a fraction from 0 to 1 (the share of a step's requests that may end with a 429 for the step to hold; 0.05 for 5 %), got ${JSON.stringify(text)}`,
      'nothing was sent or written',
    );
  return value;
}

/** What a step (a phase of the plan) brings to the judgement. */
export interface CapacityStepInput {
  readonly phase: string;
  readonly fromRpm: number;
  readonly toRpm: number;
  readonly offeredRpm: number;
  /** Requests answered 2xx a model minute; null for a zero-length phase. */
  readonly goodputRpm: number | null;
  readonly sent: number;
  /** Requests that ended with a 429. */
  readonly ended429: number;
  /** The statuses of its p95 target checks (one per band it spans); empty without a documented target. */
  readonly p95Statuses: readonly ('pass' | 'fail' | 'inconclusive')[];
}

export interface GoodputPlateau {
  /** The first step of the plateau; it lasts to the run's last step. */
  readonly fromPhase: string;
  /** The mean goodput of its steps (requests answered 2xx a model minute, 1 decimal). */
  readonly goodputRpm: number;
  /** The offered rates it spans (requests a minute). */
  readonly fromOfferedRpm: number;
  readonly toOfferedRpm: number;
  readonly steps: number;
}

export interface CapacityFindings {
  /** The largest share (0–1) of a step's requests that may end with a 429 for it to hold (`--capacity-429-share`). */
  readonly max429Share: number;
  /** The highest offered rate (its step's top) of a step that held; null when none did. */
  readonly highestServedRpm: number | null;
  readonly highestServedPhase: string | null;
  /** From which step on goodput stopped climbing with the offered rate; null when it kept climbing. */
  readonly plateau: GoodputPlateau | null;
}

/** A plateau spans at least this many steps: two flat steps can be noise. */
const MIN_PLATEAU_STEPS = 3;

/**
 * Whether the phases step the rate up, as a capacity search does: at least three phases whose rates never go down,
 * with at least three different rates.
 */
function stepsUp(phases: readonly { readonly fromRpm: number; readonly toRpm: number }[]): boolean {
  const rates = phases.map((p) => p.toRpm);
  return (
    rates.length >= 3 &&
    phases.every((p, i) => i === 0 || (p.toRpm >= phases[i - 1]!.toRpm && p.fromRpm >= phases[i - 1]!.fromRpm)) &&
    new Set(rates).size >= 3
  );
}

/** A step holds when every p95 check of it passed and at most `max429Share` of its requests ended with a 429. */
function stepHolds(step: CapacityStepInput, max429Share: number): boolean {
  if (step.p95Statuses.length === 0 || step.p95Statuses.some((s) => s !== 'pass')) return false;
  return step.sent > 0 && step.ended429 / step.sent <= max429Share;
}

/**
 * Whether goodput is flat over `steps` while the offered rate climbs: its spread is within the tolerance (2 rpm or 5 %
 * of its mean, whichever is more), its rise is under a tenth of the offered rate's, and the last step was offered more
 * than it got. Random variation of a goodput that follows the offered rate fails the rise test; a plateau passes all.
 */
function flat(steps: readonly CapacityStepInput[]): boolean {
  const goodput = steps.map((s) => s.goodputRpm);
  if (goodput.some((g) => g === null)) return false;
  const g = goodput as number[];
  const mean = g.reduce((a, b) => a + b, 0) / g.length;
  const tolerance = Math.max(2, 0.05 * mean);
  const first = steps[0]!;
  const last = steps.at(-1)!;
  const offeredRise = last.offeredRpm - first.offeredRpm;
  return (
    offeredRise > 0 &&
    Math.max(...g) - Math.min(...g) <= tolerance &&
    g.at(-1)! - g[0]! <= 0.1 * offeredRise &&
    last.offeredRpm - g.at(-1)! > tolerance
  );
}

/** The earliest step from which goodput stays flat to the last step, over at least MIN_PLATEAU_STEPS steps. */
export function goodputPlateau(steps: readonly CapacityStepInput[]): GoodputPlateau | null {
  for (let i = 0; i + MIN_PLATEAU_STEPS <= steps.length; i++) {
    const tail = steps.slice(i);
    if (!flat(tail)) continue;
    const mean = tail.reduce((a, s) => a + s.goodputRpm!, 0) / tail.length;
    return {
      fromPhase: tail[0]!.phase,
      goodputRpm: Math.round(mean * 10) / 10,
      fromOfferedRpm: tail[0]!.fromRpm,
      toOfferedRpm: tail.at(-1)!.toRpm,
      steps: tail.length,
    };
  }
  return null;
}

/** The capacity findings of a stepping run's phases, or null when they do not step the rate up. */
export function judgeCapacity(steps: readonly CapacityStepInput[], max429Share: number): CapacityFindings | null {
  if (!stepsUp(steps)) return null;
  const held = steps.filter((s) => stepHolds(s, max429Share));
  const top = held.reduce<CapacityStepInput | null>(
    (best, s) => (best === null || s.toRpm > best.toRpm ? s : best),
    null,
  );
  return {
    max429Share,
    highestServedRpm: top?.toRpm ?? null,
    highestServedPhase: top?.phase ?? null,
    plateau: goodputPlateau(steps),
  };
}
