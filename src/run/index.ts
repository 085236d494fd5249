export { executeRun } from './prepare.js';
export type { RunOptions, RunOutcome, RunReports } from './execute.js';
export { describeEnding, formatManifestLine, formatSummary } from './terminal.js';
export type { ResolvedTarget } from './target.js';
export { gitCommitOf, hostRecord } from './host.js';
