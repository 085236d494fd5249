export { GENERATOR_BUDGET, evaluateVerdict, percentileCheck, type Check, type CheckStatus, type GeneratorHealth, type PhaseInput, type Verdict, type VerdictInput } from './evaluate.js';
export { quantileRankInterval, type RankInterval } from './quantile-interval.js';
