/**
 * summary.json's `capacity`: what a run that steps the rate up shows of capacity (the highest rate served within its
 * target, the goodput plateau), null when the plan does not step up; and its `first429`: why the run's first 429 came
 * where it came.
 */
import type { Plan } from '../plan/index.js';
import type { Recorder } from '../recorder/index.js';
import { type CapacityFindings, judgeCapacity } from './capacity-judgement.js';
import type { EnvelopeJudgement } from './envelope.js';
import { explainFirst429, type First429 } from './first-429.js';
import type { Verdict } from './verdict.js';

/** What capacitySummary reads of each phase summary. */
interface PhaseFigures {
  readonly name: string;
  readonly fromRpm: number;
  readonly toRpm: number;
  readonly offeredRpm: number;
  readonly goodputRpm: number | null;
  readonly sent: number;
  readonly outcomes: { readonly http_429: number };
}

export function capacitySummary(
  verdict: Verdict,
  phases: readonly PhaseFigures[],
  max429Share: number,
): CapacityFindings | null {
  return judgeCapacity(
    phases.map((p) => ({
      phase: p.name,
      fromRpm: p.fromRpm,
      toRpm: p.toRpm,
      offeredRpm: p.offeredRpm,
      goodputRpm: p.goodputRpm,
      sent: p.sent,
      ended429: p.outcomes.http_429,
      p95Statuses: verdict.checks
        .filter((c) => c.id === 'latency_p95_target' && c.phase === p.name)
        .map((c) => c.status),
    })),
    max429Share,
  );
}

/** Why the run's first 429 came where it came; null without a 429, or in a shard (the merge explains it). */
export function first429Summary(plan: Plan, recorder: Recorder, envelope: EnvelopeJudgement): First429 | null {
  if (plan.shard !== undefined) return null;
  return explainFirst429(
    envelope,
    envelope.start.tokens,
    {
      admittedSentMs: recorder.attempts.admittedTimes(0).sentAtMs,
      refusedSentMs: recorder.attempts.refusedAttempts().sentAtMs,
      plannedMs: plan.phases.flatMap((p) => Array.from(p.arrivalsMs)),
    },
    plan.phases,
  );
}
