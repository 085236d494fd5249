export { MsHistogram, type HistogramSummary } from './histogram.js';
export { COUNTED_OUTCOMES, ERROR_OUTCOMES, SENT_OUTCOMES, Recorder, Slice, type CountedOutcome, type RecordableEvent } from './recorder.js';
export { AttemptLog, type RefusedAttempts } from './attempts.js';
