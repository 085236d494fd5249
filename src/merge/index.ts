export { type MergeOptions, mergeAndJudge } from './merge.js';
