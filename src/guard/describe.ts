/** The guard's decision as text, for `loadproof plan` and the run's log: one line per rule. */
import type { GuardCheck, GuardDecision } from './evaluate.js';

const MARK: Record<GuardCheck['status'], string> = { ok: '✔', refused: '✖', 'not-applicable': '–' };

export function describeDecision(decision: GuardDecision): string[] {
  const head = decision.allowed ? 'ALLOWED' : 'REFUSED';
  // Rules not applicable for the same reason share a line (a mock: all four traffic rules).
  const lines: { mark: string; rules: string; message: string }[] = [];
  for (const c of decision.checks) {
    const message = c.status === 'not-applicable' ? `not applicable: ${c.message}` : c.message;
    const last = lines[lines.length - 1];
    if (last !== undefined && c.status === 'not-applicable' && last.mark === MARK['not-applicable'] && last.message === message) last.rules += `, ${c.rule}`;
    else lines.push({ mark: MARK[c.status], rules: c.rule, message });
  }
  const width = Math.max(...decision.checks.map((c) => c.rule.length));
  return [
    `Guard: ${head} for a run starting ${decision.startAt} against ${decision.environment} (planned end ${decision.plannedEndAt})`,
    ...lines.map((l) => `  ${l.mark} ${l.rules.padEnd(width)}  ${l.message}`),
  ];
}
