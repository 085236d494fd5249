export { MsHistogram, SparseMsHistogram, type HistogramSummary } from './histogram.js';
export { COUNTED_OUTCOMES, ERROR_OUTCOMES, FAILED_OUTCOMES, SENT_OUTCOMES, type CountedOutcome, type RecordableEvent, type RecordedTry } from './event.js';
export { Recorder, Slice, TIME_BLOCKS, type PhaseLayout, type SliceSpan } from './recorder.js';
export { Timeline, type TimelineWindow } from './timeline.js';
export { type InFlightWindows, inFlightByWindow } from './in-flight.js';
export { type AdmittedTimes, AttemptLog, type RefusedAttempts } from './attempts.js';
