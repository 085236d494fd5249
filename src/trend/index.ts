/**
 * Trends across runs: the summaries of many run folders, per scenario in time order, each run flagged where compare
 * would flag it. chart.js loads only when a trend is written.
 */
export { writeTrend } from './write-trend.js';
