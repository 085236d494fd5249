export { SCENARIO_BOUNDS } from './bounds.js';
export { formatDuration, parseDurationMs } from './duration.js';
export { scenarioJsonSchema, scenarioJsonSchemaText } from './json-schema.js';
export { loadScenario, parseScenario, type Phase, type Scenario } from './load.js';
export { formatDecimal } from './number.js';
export { readScenarioText } from './parse-text.js';
export { NoticeSchema } from './scenario-schema.js';
export type { TargetKind } from './target-kind.js';
export { type Countable, parseErrorCheck, parseThreshold, type Threshold } from './threshold.js';
