/** The process exit codes, in one table (DESIGN.md "Conventions"); docs/exit-codes.md prints it. */
export const EXIT = {
  pass: 0,
  slaNotMet: 1,
  badInput: 2,
  refusedByGuard: 3,
  runFailed: 4,
  inconclusive: 5,
  interrupted: 130,
} as const;

/** How CI takes an inconclusive verdict (`--inconclusive`): as a failure (1), a pass (0), or its own exit 5. */
export const INCONCLUSIVE_POLICIES = ['exit5', 'fail', 'pass'] as const;
export type InconclusivePolicy = (typeof INCONCLUSIVE_POLICIES)[number];

/**
 * The process exit for a run's exit code under `policy`: only 5 (inconclusive) is mapped; 4, 130 and the rest stand.
 */
export function exitUnder(policy: InconclusivePolicy, exitCode: number): number {
  if (exitCode !== EXIT.inconclusive) return exitCode;
  return policy === 'fail' ? EXIT.slaNotMet : policy === 'pass' ? EXIT.pass : EXIT.inconclusive;
}
