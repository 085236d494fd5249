export { accountLatency } from './accounting.js';
export type { Check, CheckStatus } from './check.js';
export { compareRuns } from './compare.js';
export {
  comparisonFindings,
  comparisonRows,
  comparisonRule,
  comparisonVerdict,
  formatComparison,
} from './compare-table.js';
export {
  type BaselineComparison,
  type ComparedRun,
  type CompareOptions,
  type Comparison,
  COMPARISON_FILE,
  DEFAULT_ALPHA,
  exitWithComparison,
  type Finding,
  parseComparison,
  type PhaseComparison,
} from './comparison.js';
export {
  type ChainStage,
  type DocumentOutcome,
  type DocumentRecord,
  DocumentSink,
  DocumentSlice,
  documentSliceSummary,
  formatDocumentLine,
  parseDocumentLine,
} from './documents.js';
export {
  bucketCapacityTokens,
  describeEnvelopePhase,
  ENVELOPE_MARGIN,
  type EnvelopeAttempts,
  envelopeFindings,
  type EnvelopeJudgement,
  envelopeMarginTokens,
  type EnvelopePhase,
  sharedEnvelope,
} from './envelope.js';
export {
  type EventRecord,
  type EventSource,
  formatEventLine,
  parseEventLine,
  toEventRecord,
  toRecordable,
} from './events.js';
export { fisherGreater } from './fisher.js';
export { GENERATOR_BUDGET, worstLatenessMs } from './generator-budget.js';
export { EventSink, type JudgeInput, type Judgement, judgeRun, partialEnd } from './judge.js';
export { percentileCheck, slowestAnsweredMs } from './percentile-check.js';
export {
  minimumSamples,
  nearestRank,
  type QuantileInterval,
  quantileInterval,
  quantileRankBounds,
  type RankBounds,
  type TimeOrderedSample,
} from './quantile-interval.js';
export {
  type EngineRecord,
  type GuardRecord,
  guardRecord,
  type HostRecord,
  type MergedShard,
  RUN_RECORD_SCHEMA_VERSION,
  type RunEnd,
  type RunRecord,
  type StopReason,
} from './run-record.js';
export { buildSummary, type Summary, SUMMARY_SCHEMA_VERSION } from './summary.js';
export { summaryJson } from './summary-json.js';
export { evaluateVerdict, type Verdict } from './verdict.js';
export type { GeneratorHealth, PhaseInput, VerdictInput } from './verdict-input.js';
