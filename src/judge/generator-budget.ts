/** The generator's accuracy budget: how late it may be before its lateness could pass for the service's. */
import { formatMs, type TimeScale } from '../core/index.js';
import type { Slice } from '../recorder/index.js';
import type { GeneratorHealth } from './verdict-input.js';

/**
 * The generator's accuracy budget, as a fraction of the latency target judged: past it, a failing
 * latency check cannot tell the service's lateness from the generator's. 1 % of a 2.5 s target is 25 ms
 * of lateness as latency counts it (at time scale k, once: GeneratorHealth.latenessInLatency).
 */
export const GENERATOR_BUDGET = { fractionOfTarget: 0.01 } as const;

/** How the generator broke its budget for a target: which figures, and whether the event loop was one. */
interface GeneratorLateness {
  readonly text: string;
  readonly eventLoopBlocked: boolean;
}

/**
 * How late the generator was for `targetMs` (its phase's send lag, the run's event loop), or undefined within budget.
 */
export function generatorOverBudget(
  sendLagP99Ms: number,
  g: GeneratorHealth,
  targetMs: number,
): GeneratorLateness | undefined {
  const budgetMs = GENERATOR_BUDGET.fractionOfTarget * targetMs;
  const share = g.latenessInLatency ?? 1;
  const lagMs = sendLagP99Ms * share;
  const loopMs = g.eventLoopDelayP99Ms === undefined ? undefined : g.eventLoopDelayP99Ms * share;
  const problems: string[] = [];
  if (lagMs > budgetMs) problems.push(`send lag p99 ${formatMs(lagMs)}`);
  const eventLoopBlocked = loopMs !== undefined && loopMs > budgetMs;
  if (eventLoopBlocked) problems.push(`event-loop delay p99 ${formatMs(loopMs!)}`);
  if (problems.length === 0) return undefined;
  const counted = share === 1 ? '' : ' (as latency counts it: once, not k times)';
  return {
    text: `${problems.join(' and ')}${counted} over the generator's budget of ${formatMs(budgetMs)}, ${GENERATOR_BUDGET.fractionOfTarget * 100} % of the target, model time`,
    eventLoopBlocked,
  };
}

/**
 * The generator's worst lateness as the latency of `slice` counts it (model ms): its send-lag max plus the
 * event loop's max delay. No sample was inflated by more; compare takes it off a late run's p95 too.
 */
export function worstLatenessMs(slice: Slice, g: GeneratorHealth): number {
  const lagMax = slice.sendLag.count === 0 ? 0 : slice.sendLag.percentileMs(100);
  return (lagMax + (g.eventLoopDelayMaxMs ?? g.eventLoopDelayP99Ms ?? 0)) * (g.latenessInLatency ?? 1);
}

/**
 * The generator's health as the verdict judges it, from the event loop's delays in wall ms (null: not
 * monitored) at time scale `scale`. At k > 1 (against the mock only) latency counts the wall overheads,
 * the generator's lateness among them, once.
 */
export function generatorHealth(
  scale: TimeScale,
  loopP99WallMs: number | null,
  loopMaxWallMs: number | null,
): GeneratorHealth {
  return {
    ...(loopP99WallMs === null ? {} : { eventLoopDelayP99Ms: scale.toModelMs(loopP99WallMs) }),
    ...(loopMaxWallMs === null ? {} : { eventLoopDelayMaxMs: scale.toModelMs(loopMaxWallMs) }),
    latenessInLatency: scale.toWallMs(1),
  };
}
