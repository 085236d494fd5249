export { loadScenario, parseScenario, type Phase, type Scenario } from './load.js';
export { readScenarioText } from './parse-text.js';
export { toDotPath } from './dot-path.js';
export { SCENARIO_BOUNDS } from './bounds.js';
export { NoticeSchema, ScenarioSchema, type ScenarioInput } from './schema.js';
export { parseDurationMs, formatDuration } from './duration.js';
export { formatDecimal } from './number.js';
export { DEFAULT_ERROR_CHECK, parseErrorCheck, parseThreshold, THRESHOLD_SYNTAX, type Threshold, type Countable, type ThresholdOperator } from './threshold.js';
export { scenarioJsonSchema, scenarioJsonSchemaText } from './json-schema.js';
