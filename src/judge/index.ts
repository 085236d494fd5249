export { accountLatency } from './accounting.js';
export { parseCapacity429Share } from './capacity-judgement.js';
export { compareRuns } from './compare.js';
export { type ComparedPhase, p95Findings } from './compare-phase.js';
export { addRateFindings } from './compare-rates.js';
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
  type SideFigures,
} from './comparison.js';
export { countedLatencyMs } from './counted-latency.js';
export { type DocumentRecord, DocumentSink, formatDocumentLine, parseDocumentLine } from './documents.js';
export { envelopeFindings } from './envelope.js';
export { ErrorSampler } from './error-sample.js';
export { type EventRecord, formatEventLine, parseEventLine, toEventRecord } from './events.js';
export { EventSink, type Judgement, judgeRun, partialEnd } from './judge.js';
export { percentileCheck } from './percentile-check.js';
export { nearestRank, quantileRankBounds } from './quantile-interval.js';
export {
  guardRecord,
  type HostRecord,
  type IdleDeclaration,
  type MergedShard,
  RUN_RECORD_SCHEMA_VERSION,
  type RunEnd,
  type RunRecord,
} from './run-record.js';
export { type Summary } from './summary.js';
export { summaryJson } from './summary-json.js';
export { findingTarget, inTargetWords } from './target-words.js';
