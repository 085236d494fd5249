export { type EventRecord, type EventSource, formatEventLine, parseEventLine, toEventRecord, toRecordable } from './events.js';
export { EventSink, type Judgement, type JudgeInput, judgeRun, partialEnd } from './judge.js';
export { type EngineRecord, type GuardRecord, type HostRecord, type MergedShard, RUN_RECORD_SCHEMA_VERSION, type RunEnd, type RunRecord, type StopReason, type TargetKind, guardRecord } from './run-record.js';
export { SUMMARY_SCHEMA_VERSION, buildSummary, type Summary, summaryJson } from './summary.js';
export { type JudgedFolder, readJudgedFolder, readRunRecord } from './folder.js';
export { type ChainStage, type DocumentOutcome, type DocumentRecord, DocumentSink, DocumentSlice, documentSliceSummary, formatDocumentLine, parseDocumentLine } from './documents.js';
export { accountLatency } from './accounting.js';
