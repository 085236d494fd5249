export { buildPlan, type Plan, type PlannedPhase } from './build-plan.js';
export { expectedArrivals, phaseArrivals, timeOfArrival, type ArrivalProcess, type RateShape } from './arrivals.js';
export { describePlan, planNotes } from './describe.js';
export { DOCUMENTED_ENVELOPE, envelopeFlags, type EnvelopeLimits } from './envelope.js';
