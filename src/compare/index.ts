export { type BaselineComparison, COMPARISON_FILE, type Comparison, type ComparedRun, type CompareOptions, DEFAULT_ALPHA, type Finding, type PhaseComparison, compareRuns, exitWithComparison, parseComparison } from './compare.js';
export { comparisonFindings, comparisonRows, comparisonRule, comparisonVerdict, formatComparison } from './format.js';
export { fisherGreater } from './fisher.js';
export { compareFolders, comparedRun, parseTolerance } from './folders.js';
