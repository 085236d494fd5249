export { MsHistogram, SparseMsHistogram, type HistogramSummary } from './histogram.js';
export { COUNTED_OUTCOMES, ERROR_OUTCOMES, FAILED_OUTCOMES, SENT_OUTCOMES, Recorder, Slice, TIME_BLOCKS, WindowSlice, type CountedOutcome, type PhaseLayout, type RecordableEvent, type SliceSpan } from './recorder.js';
export { type AdmittedTimes, AttemptLog, type RefusedAttempts } from './attempts.js';
