export { GENERATOR_BUDGET, evaluateVerdict, percentileCheck, type Check, type CheckStatus, type GeneratorHealth, type PhaseInput, type Verdict, type VerdictInput } from './evaluate.js';
export { minimumSamples, nearestRank, quantileInterval, quantileRankBounds, type QuantileInterval, type RankBounds, type TimeOrderedSample } from './quantile-interval.js';
