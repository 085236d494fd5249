export { type MergeOptions, mergeAndJudge, mergeShards } from './merge.js';
