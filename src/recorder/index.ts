export { type AdmittedTimes, AttemptLog, type RefusedAttempts } from './attempts.js';
export {
  COUNTED_OUTCOMES,
  type CountedOutcome,
  ERROR_OUTCOMES,
  FAILED_OUTCOMES,
  type RecordableEvent,
  type RecordedTry,
  SENT_OUTCOMES,
} from './event.js';
export { type HistogramSummary, MsHistogram, SparseMsHistogram } from './histogram.js';
export { inFlightByWindow, type InFlightWindows } from './in-flight.js';
export { type PhaseLayout, Recorder, Slice, type SliceSpan, TIME_BLOCKS } from './recorder.js';
export { Timeline, type TimelineWindow } from './timeline.js';
