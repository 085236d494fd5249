export { SCENARIO_BOUNDS } from './bounds.js';
export { toDotPath } from './dot-path.js';
export { formatDuration, parseDurationMs } from './duration.js';
export { scenarioJsonSchema, scenarioJsonSchemaText } from './json-schema.js';
export { loadScenario, parseScenario, type Phase, type Scenario } from './load.js';
export { formatDecimal } from './number.js';
export { readScenarioText } from './parse-text.js';
export { NoticeSchema, type ScenarioInput, ScenarioSchema } from './scenario-schema.js';
export type { TargetKind } from './target-kind.js';
export {
  type Countable,
  DEFAULT_ERROR_CHECK,
  parseErrorCheck,
  parseThreshold,
  type Threshold,
  THRESHOLD_SYNTAX,
  type ThresholdOperator,
} from './threshold.js';
