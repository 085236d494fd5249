export { comparedRun, compareFolders, parseTolerance } from './compare-folders.js';
export { finishRun, type FolderJudgement, judgeFolder } from './finish.js';
export { describeVerification, ManifestUnreadable, verifyFolder } from './manifest-verify.js';
export { mergeAndJudge } from './merge.js';
export {
  claimRunFolder,
  dropClaim,
  EventLog,
  makeRunFolder,
  pointLatestAt,
  releaseRunFolder,
  removeRunFolder,
} from './write.js';
