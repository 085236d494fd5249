export { type MergeOptions, mergeShards } from './merge.js';
