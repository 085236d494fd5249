/**
 * How long a Kubernetes Job running this plan may take (its activeDeadlineSeconds, deploy/kubernetes):
 * from the Job's creation, the wait until the run's start, the plan's wall duration, the last request's
 * attempts (each up to the client timeout, and the waits between them with on429: retry), and a margin for
 * what a pod does besides (pulling the image, start-up, the token call, warm-up, writing the reports).
 * A fixed deadline (it was 2 h) would kill a plan that lasts longer, and scenarios may run 7 days.
 */
import { TimeScale } from '../core/index.js';
import type { Plan } from './build-plan.js';

/** Seconds allowed besides the plan, its start and its last request. */
export const JOB_DEADLINE_MARGIN_S = 900;

/** activeDeadlineSeconds for a Job created `leadMs` (wall) before the run starts, rounded up to the minute. */
export function jobDeadlineS(plan: Plan, leadMs: number): number {
  const s = plan.scenario;
  const scale = TimeScale.of(plan.timeScale);
  const attempts = s.on429.policy === 'retry' ? s.on429.maxAttempts : 1;
  const lastRequestMs = attempts * s.timeoutMs + (attempts - 1) * s.on429.maxDelayMs;
  const totalS =
    Math.max(0, leadMs) / 1000 + scale.toWallMs(plan.durationMs + lastRequestMs) / 1000 + JOB_DEADLINE_MARGIN_S;
  return Math.ceil(totalS / 60) * 60;
}
