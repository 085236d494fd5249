export { canonicalText } from './canonical-text.js';
export { claimEmptyFolder, dropClaim, type FolderClaim, releaseFolder } from './claim-folder.js';
export { type CancelTimer, type Clock, ManualClock, monotonicMs, ScaledClock } from './clock.js';
export {
  GuardRefusal,
  Interrupted,
  LoadproofError,
  RunFailure,
  ScenarioError,
  ThresholdAbort,
  UsageError,
} from './errors.js';
export { EXIT, exitUnder, INCONCLUSIVE_POLICIES, type InconclusivePolicy } from './exit-codes.js';
export { collectGarbageNow } from './full-collection.js';
export { checkListenHost, type Exposure, exposureOf } from './listen-host.js';
export { deferMemoryReducer } from './memory-reducer.js';
export { PHASE_NAME, SCENARIO_NAME } from './names.js';
export { checkRunFolder, MAX_JSON_BYTES, openRegular, readLines, readRegular, RUN_SUBFOLDERS } from './read-bounded.js';
export { MIN_SECRET_LENGTH, redact, redactWritten, SecretMask } from './redact.js';
export { COUNTED_OUTCOMES, type CountedOutcome, type Outcome, SENT_OUTCOMES } from './request-fate.js';
export { createRng, nextExponential, nextInt, nextLogNormalFactor, pick, type Rng } from './rng.js';
export { checkPermitted, issueSendPermit, type SendPermit } from './send-permit.js';
export { countAtMost, countBelow } from './sorted.js';
export { newStallCells, type StallCells, stalledMs, StallMeter } from './stall-meter.js';
export { describeValue, echoValue, escapeInvisible, formatMs, formatTable } from './text.js';
export { TimeScale } from './time-scale.js';
export { isUnanswered, UNANSWERED_MS } from './unanswered.js';
export { firstInvalidUtf8 } from './utf8.js';
export { LOADPROOF_VERSION } from './version.js';
export {
  type FileResult,
  publishFolder,
  removeRegular,
  whyNot,
  writeAtomically,
  writeWhole,
} from './write-whole-files.js';
export { capYoungGeneration } from './young-generation.js';
