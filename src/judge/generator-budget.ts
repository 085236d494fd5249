/** The generator's accuracy budget: how late it may be before its lateness could pass for the service's. */
import { formatMs, type TimeScale } from '../core/index.js';
import type { Slice } from '../recorder/index.js';
import type { MockLagRecord } from './run-record.js';
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
  /** The run's event loop or the embedded mock's was late: service time, read through it, cannot tell either. */
  readonly eventLoopBlocked: boolean;
}

/** The one line about an embedded mock that fell behind: its lag is the tool's, not the service's. */
export function mockBehindText(mock: NonNullable<GeneratorHealth['mock']>): string {
  return `the embedded mock fell behind by up to ${formatMs(mock.maxWallMs)} (wall), which could add ${formatMs(mock.modelMs)} of model time to a latency — not the service's`;
}

/**
 * Whether the embedded mock fell behind by more than `budgetMs` of model time, read as the run's own event loop is:
 * by its delay's p99, not its max. One stall delays only the arrivals it held, too few to move a percentile or to
 * explain a share of the requests; a mock behind that often is, and then its worst (max) is what it could add.
 */
export function mockFellBehind(mock: GeneratorHealth['mock'], budgetMs = 0): boolean {
  return mock !== undefined && (mock.p99ModelMs ?? mock.modelMs) > budgetMs;
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
  const mockBehind = mockFellBehind(g.mock, budgetMs);
  if (problems.length === 0 && !mockBehind) return undefined;
  const counted = share === 1 ? '' : ' (as latency counts it: once, not k times)';
  const generator =
    problems.length === 0
      ? []
      : [
          `${problems.join(' and ')}${counted} over the generator's budget of ${formatMs(budgetMs)}, ${GENERATOR_BUDGET.fractionOfTarget * 100} % of the target, model time`,
        ];
  return {
    text: [...generator, ...(mockBehind ? [mockBehindText(g.mock!)] : [])].join('; '),
    eventLoopBlocked: eventLoopBlocked || mockBehind,
  };
}

/**
 * The generator's worst lateness as the latency of `slice` counts it (model ms): its send-lag max plus the
 * event loop's max delay, plus what the embedded mock's own lag could add. No sample was inflated by more; compare
 * takes it off a late run's p95 too.
 */
export function worstLatenessMs(slice: Slice, g: GeneratorHealth): number {
  const lagMax = slice.sendLag.count === 0 ? 0 : slice.sendLag.percentileMs(100);
  const generatorMs = (lagMax + (g.eventLoopDelayMaxMs ?? g.eventLoopDelayP99Ms ?? 0)) * (g.latenessInLatency ?? 1);
  return generatorMs + (g.mock?.modelMs ?? 0);
}

/**
 * The generator's health as the verdict judges it, from the event loop's delays in wall ms (null: not
 * monitored) at time scale `scale`, and the embedded mock's own lag when it was the target. At k > 1 (against
 * the mock only) latency counts the wall overheads, the generator's lateness among them, once.
 */
export function generatorHealth(
  scale: TimeScale,
  loopP99WallMs: number | null,
  loopMaxWallMs: number | null,
  mockLag?: MockLagRecord,
): GeneratorHealth {
  return {
    ...(loopP99WallMs === null ? {} : { eventLoopDelayP99Ms: scale.toModelMs(loopP99WallMs) }),
    ...(loopMaxWallMs === null ? {} : { eventLoopDelayMaxMs: scale.toModelMs(loopMaxWallMs) }),
    latenessInLatency: scale.toWallMs(1),
    ...(mockLag === undefined
      ? {}
      : {
          mock: {
            modelMs: mockLag.modelMs,
            maxWallMs: mockLag.maxWallMs,
            p99ModelMs: scale.toModelMs(Math.max(0, mockLag.p99WallMs - mockLag.windowWallMs)),
            windowModelMs: scale.toModelMs(mockLag.windowWallMs),
          },
        }),
  };
}
