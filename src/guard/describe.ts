/** The guard's decision as text, for `loadproof plan` and the run's log: one line per rule. */
import { TRAFFIC_RULES } from '../spec/index.js';
import type { GuardCheck, GuardDecision } from './decision.js';
import { tokenCallsText } from './token-calls.js';
import { formatSpanMs } from './traffic.js';

const MARK: Record<GuardCheck['status'], string> = { ok: '✔', refused: '✖', 'not-applicable': '–' };

export function describeDecision(decision: GuardDecision): string[] {
  const head = decision.allowed ? 'ALLOWED' : 'REFUSED';
  // Rules not applicable for the same reason share a line (a mock: all four traffic rules).
  const lines: { mark: string; rules: string; message: string }[] = [];
  for (const c of decision.checks) {
    const message = c.status === 'not-applicable' ? `not applicable: ${c.message}` : c.message;
    const last = lines[lines.length - 1];
    if (
      last !== undefined &&
      c.status === 'not-applicable' &&
      last.mark === MARK['not-applicable'] &&
      last.message === message
    )
      last.rules += `, ${c.rule}`;
    else lines.push({ mark: MARK[c.status], rules: c.rule, message });
  }
  const width = Math.max(...decision.checks.map((c) => c.rule.length));
  return [
    `Guard: ${head} for a run starting ${decision.startAt} against ${decision.environment} (planned end ${decision.plannedEndAt})`,
    `  ${describeTraffic(decision)}`,
    `  token calls: ${tokenCallsText(decision.traffic.tokenCalls)}`,
    ...lines.map((l) => `  ${l.mark} ${l.rules.padEnd(width)}  ${l.message}`),
  ];
}

/** The measures the rules judge, on one line: what the planned arrivals put in any minute. */
function describeTraffic(decision: GuardDecision): string {
  const t = decision.traffic;
  const above = TRAFFIC_RULES.coordinationAboveRpm;
  const spike = decision.limits.spikeRpm;
  const stretch = (
    s: { durationMs: number; startMs: number; endMs: number } | null,
    what: string,
    never: string,
  ): string =>
    s === null
      ? never
      : `${what} for ${formatSpanMs(s.durationMs)} at most (${formatSpanMs(s.startMs)} – ${formatSpanMs(s.endMs)})`;
  const counted =
    t.worstCaseFactor === 1
      ? 'each arrival counted once'
      : `each arrival counted ${t.worstCaseFactor} times: on429 retry's maxAttempts, for retries and the resend after a token renewal`;
  return `traffic (planned requests in sliding 60 s windows, ${counted}): ${[
    `peak ${t.peakRpm} in a minute${t.peakMinuteStartMs === null ? '' : ` (from ${formatSpanMs(t.peakMinuteStartMs)})`}`,
    stretch(t.longestAboveCoordinationRpm, `above ${above} rpm`, `never above ${above} rpm`),
    stretch(t.longestAtSpikeRpm, `at ${spike} rpm`, `never at ${spike} rpm`),
  ].join('; ')}`;
}
