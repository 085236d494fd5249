/** The guard's decision as text, for `loadproof plan` and the run's log: one line per rule. */
import type { GuardCheck, GuardDecision } from './evaluate.js';

const MARK: Record<GuardCheck['status'], string> = { ok: '✔', refused: '✖', 'not-applicable': '–' };

export function describeDecision(decision: GuardDecision): string[] {
  const head = decision.allowed ? 'ALLOWED' : 'REFUSED';
  const width = Math.max(...decision.checks.map((c) => c.rule.length));
  return [
    `Guard: ${head} for a run starting ${decision.startAt} against ${decision.environment} (planned end ${decision.plannedEndAt})`,
    ...decision.checks.map((c) => `  ${MARK[c.status]} ${c.rule.padEnd(width)}  ${c.status === 'not-applicable' ? `not applicable: ${c.message}` : c.message}`),
  ];
}
