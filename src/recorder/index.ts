export { type AdmittedTimes, AttemptLog, type RefusedAttempts } from './attempts.js';
export { ERROR_OUTCOMES, FAILED_OUTCOMES, type RecordableEvent, type RecordedTry } from './event.js';
export { type HistogramSummary, MsHistogram } from './histogram.js';
export { inFlightByWindow } from './in-flight.js';
export { LATENCY_DEFINITION, latencyKind } from './latency-definition.js';
export { Recorder, Slice, TIME_BLOCKS } from './recorder.js';
