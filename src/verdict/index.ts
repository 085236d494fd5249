export { GENERATOR_BUDGET, evaluateVerdict, percentileCheck, slowestAnsweredMs, type Check, type CheckStatus, type GeneratorHealth, type PhaseInput, type Verdict, type VerdictInput } from './evaluate.js';
export { minimumSamples, nearestRank, quantileInterval, quantileRankBounds, type QuantileInterval, type RankBounds, type TimeOrderedSample } from './quantile-interval.js';
export { ENVELOPE_MARGIN, bucketCapacityTokens, describeEnvelopePhase, envelopeFindings, envelopeMarginTokens, sharedEnvelope, type EnvelopeAttempts, type EnvelopeJudgement, type EnvelopePhase } from './envelope.js';
