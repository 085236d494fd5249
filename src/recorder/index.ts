export { MsHistogram, type HistogramSummary } from './histogram.js';
export { COUNTED_OUTCOMES, ERROR_OUTCOMES, FAILED_OUTCOMES, SENT_OUTCOMES, Recorder, Slice, type CountedOutcome, type RecordableEvent } from './recorder.js';
