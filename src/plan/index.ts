export { endsInclusive, rateAt } from './bands.js';
export {
  arrivalsBefore,
  arrivalsDueBy,
  buildPlan,
  documentOfSeq,
  type Plan,
  type PlannedPhase,
  type Shard,
} from './build-plan.js';
export { describePlan, planNotes } from './describe.js';
export { emptyPlanProblem } from './empty.js';
export { planIdentity } from './identity.js';
export { jobDeadlineS } from './job-deadline.js';
export { DOCUMENTED_LIMITS, type EffectiveLimits, effectiveLimits } from './limits.js';
export { predict429s, type Predicted429 } from './predicted-429.js';
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
export { documentsHeld, holdsDocument } from './shard-documents.js';
