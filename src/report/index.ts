export { type FolderJudgement, judgeFolder } from './judge-folder.js';
export { junitXml, xmlText } from './junit.js';
export { MANIFEST_FILE, type Manifest, ManifestUnreadable, type Verification, describeVerification, verifyFolder } from './manifest.js';
export { type ManifestWrite, scenarioSeeds, writeManifest, writeReports } from './write-reports.js';
