export { executeRun } from './prepare.js';
export type { RunOptions, RunOutcome } from './execute.js';
export { describeEnding, formatSummary } from './terminal.js';
export type { ResolvedTarget } from './target.js';
