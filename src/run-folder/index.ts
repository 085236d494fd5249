export { comparedRun, compareFolders, parseTolerance } from './compare-folders.js';
export { type FinishedRun, type FinishInput, finishRun, type FolderJudgement, judgeFolder } from './finish.js';
export {
  buildManifest,
  type Manifest,
  MANIFEST_FILE,
  manifestText,
  type ManifestWrite,
  type PreviousManifest,
  scenarioSeeds,
  sha256Text,
  writeManifest,
} from './manifest.js';
export { describeVerification, ManifestUnreadable, type Verification, verifyFolder } from './manifest-verify.js';
export { mergeAndJudge, type MergeOptions } from './merge.js';
export { type JudgedFolder, readJudgedFolder, readRunRecord } from './read.js';
export {
  claimRunFolder,
  dropClaim,
  EventLog,
  makeRunFolder,
  pointLatestAt,
  releaseRunFolder,
  removeRunFolder,
} from './write.js';
