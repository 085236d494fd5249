/** The process exit codes, in one table (DESIGN.md "Conventions"); the README prints it. */
export const EXIT = {
  pass: 0,
  slaNotMet: 1,
  badInput: 2,
  refusedByGuard: 3,
  runFailed: 4,
  inconclusive: 5,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
