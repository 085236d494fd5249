export { hostRecord } from './host.js';
export { checkMetricsHost } from './metrics/listen.js';
export { planScenario } from './plan-scenario.js';
export { executeRun } from './prepare.js';
export { describeEnding, formatManifestLine, formatSummary } from './terminal.js';
