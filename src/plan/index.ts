export { arrivalsBefore, arrivalsDueBy, buildPlan, documentOfSeq, type Plan, type PlanOptions, type PlannedDocuments, type PlannedPhase, type Shard } from './build-plan.js';
export { expectedArrivals, firstDue, phaseArrivals, planArrivals, timeOfArrival, type ArrivalProcess, type PhaseArrivals, type RateShape } from './arrivals.js';
export { describePlan, planNotes } from './describe.js';
export { planIdentity } from './identity.js';
export { type BandSlice, bandSlices, endsInclusive, rateAt, sliceIndexAt } from './bands.js';
export { MAX_SHARDS, holdsSeq, isShard, maxInFlightOf, parseShard, positionOfSeq, seqInWholePlan, shardPlan } from './shard.js';
export { emptyPlanProblem } from './empty.js';
export { JOB_DEADLINE_MARGIN_S, jobDeadlineS } from './job-deadline.js';
export { DOCUMENTED_LIMITS, effectiveLimits, type EffectiveLimits } from './limits.js';
