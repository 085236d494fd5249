export { type MergeOptions, mergeAndJudge } from './merge.js';
export { compareFolders, comparedRun, parseTolerance } from './compare-folders.js';
export { EventLog, claimRunFolder, dropClaim, makeRunFolder, pointLatestAt, releaseRunFolder, removeRunFolder } from './write.js';
export { type JudgedFolder, readJudgedFolder, readRunRecord } from './read.js';
export { type FinishInput, type FinishedRun, type FolderJudgement, finishRun, judgeFolder } from './finish.js';
export { MANIFEST_FILE, type Manifest, ManifestUnreadable, type PreviousManifest, type Verification, type ManifestWrite, buildManifest, describeVerification, scenarioSeeds, writeManifest, manifestText, sha256Text, verifyFolder } from './manifest.js';
