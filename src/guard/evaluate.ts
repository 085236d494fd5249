/**
 * The guard: a pure function of (plan, target, notice / coordination / limits, start time) that
 * decides whether a run may send anything, with one check per rule and a reason for each refusal
 * naming the rule, the values and what would satisfy it. `run` obeys it before the token call;
 * `plan` prints it. The spec's rules apply to real environments (sandbox, production); a mock must
 * be on loopback.
 */
import { TimeScale } from '../core/index.js';
import { effectiveLimits, type Plan } from '../plan/index.js';
import { TRAFFIC_RULES } from '../spec/index.js';
import type { GuardCheck, GuardContext, GuardDecision } from './decision.js';
import { formatInstant } from './notice.js';
import { noticeCheck, noticeWindowCheck } from './notice-checks.js';
import { targetCheck, timeScaleCheck } from './target-checks.js';
import { formatSpanMs, measureTraffic, WINDOW_MS } from './traffic.js';
import { COORDINATION_MS, coordinationCheck, envelopeCheck } from './traffic-checks.js';

/**
 * The worst-case time after the last arrival slot until its final answer (model ms). In mode deid a
 * document's pieces may go one wave after another (its concurrency), and its obfuscation call comes last.
 */
function worstTailMs(plan: Plan): number {
  const { on429, timeoutMs } = plan.scenario;
  const one =
    on429.policy === 'retry' ? on429.maxAttempts * timeoutMs + (on429.maxAttempts - 1) * on429.maxDelayMs : timeoutMs;
  const d = plan.documents;
  if (d === undefined) return one;
  let most = 1;
  for (let i = 0; i < d.count; i++) most = Math.max(most, d.firstSeq[i + 1]! - d.firstSeq[i]!);
  return (Math.ceil(most / plan.scenario.deid.concurrency) + 1) * one;
}

export function evaluateGuard(plan: Plan, context: GuardContext): GuardDecision {
  const s = plan.scenario;
  const environment = s.target.environment;
  const startMs = context.startAtMs;
  // Wall time: a time-scaled plan (mock only) ends k times sooner.
  const endMs = startMs + TimeScale.of(plan.timeScale).toWallMs(plan.durationMs + worstTailMs(plan));
  const limits = effectiveLimits(s);
  const measures = measureTraffic(plan, {
    aboveRpm: TRAFFIC_RULES.coordinationAboveRpm,
    aboveLimitMs: COORDINATION_MS,
    atRpm: limits.spikeRpm,
    atLimitMs: limits.spikeMinutes * WINDOW_MS,
  });
  const factor = measures.worstCaseFactor;
  const traffic = {
    worstCaseFactor: factor,
    peakRpm: measures.peakRpm,
    peakMinuteStartMs: measures.peakMinuteStartMs,
    longestAboveCoordinationRpm: measures.longestAbove,
    longestAtSpikeRpm: measures.longestAt,
    maxInFlight: s.maxInFlight,
    tokenCalls: context.processes ?? 1,
  };
  const real = environment !== 'mock';
  const spreadMs = (factor - 1) * (s.timeoutMs + s.on429.maxDelayMs);
  const worstCase =
    factor > 1
      ? ` (worst case: on429 retry with maxAttempts ${factor}: each arrival counts once per attempt, and its retries — after a 429, or the resend after a token renewal — may land up to ${formatSpanMs(spreadMs)} after it, (maxAttempts − 1) × (timeout + maxDelay), so every minute they could reach counts them)`
      : '';

  const checks: GuardCheck[] = [targetCheck(plan, context), timeScaleCheck(plan)];
  if (!real) {
    const na = 'the spec’s traffic rules apply to sandbox and production, and this is a mock';
    for (const rule of ['notice', 'notice-window', 'coordination', 'envelope'] as const)
      checks.push({ rule, status: 'not-applicable', message: na });
  } else {
    checks.push(noticeCheck(plan, startMs), noticeWindowCheck(plan, startMs, endMs));
    checks.push(coordinationCheck(plan, traffic.longestAboveCoordinationRpm, worstCase));
    checks.push(
      context.endpoint === 'obfuscation'
        ? {
            rule: 'envelope',
            status: 'not-applicable',
            message:
              'the spec gives the obfuscation endpoint no numbers ("substantially higher" limits than identification): only the traffic rules (notice, coordination) apply',
          }
        : envelopeCheck(traffic, limits, worstCase),
    );
  }
  const reasons = checks.filter((c) => c.status === 'refused').map((c) => `${c.rule}: ${c.message}`);
  return {
    allowed: reasons.length === 0,
    environment,
    real,
    startAt: formatInstant(startMs),
    plannedEndAt: formatInstant(endMs),
    traffic,
    limits,
    checks,
    reasons,
  };
}
