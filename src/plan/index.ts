export {
  type ArrivalProcess,
  expectedArrivals,
  firstDue,
  type PhaseArrivals,
  phaseArrivals,
  planArrivals,
  type RateShape,
  timeOfArrival,
} from './arrivals.js';
export { type BandSlice, bandSlices, endsInclusive, rateAt, sliceIndexAt } from './bands.js';
export {
  arrivalsBefore,
  arrivalsDueBy,
  buildPlan,
  documentOfSeq,
  type Plan,
  type PlannedDocuments,
  type PlannedPhase,
  type PlanOptions,
  type Shard,
} from './build-plan.js';
export { describePlan, planNotes } from './describe.js';
export { emptyPlanProblem } from './empty.js';
export { planIdentity } from './identity.js';
export { JOB_DEADLINE_MARGIN_S, jobDeadlineS } from './job-deadline.js';
export { DOCUMENTED_LIMITS, type EffectiveLimits, effectiveLimits } from './limits.js';
export {
  holdsSeq,
  isShard,
  MAX_SHARDS,
  maxInFlightOf,
  parseShard,
  positionOfSeq,
  seqInWholePlan,
  shardPlan,
} from './shard.js';
