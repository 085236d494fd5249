export { executeRun, type RunOptions, type RunOutcome } from './execute.js';
export { describeEnding, formatSummary } from './terminal.js';
export { SUMMARY_SCHEMA_VERSION, buildSummary, type Summary } from './summary.js';
export { resolveTarget, type ResolvedTarget } from './target.js';
