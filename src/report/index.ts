export { type FolderJudgement, judgeFolder } from './judge-folder.js';
