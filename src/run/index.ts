export { executeRun, type RunOptions, type RunOutcome } from './execute.js';
export { describeEnding, formatSummary } from './terminal.js';
export { resolveTarget, type ResolvedTarget } from './target.js';
