export { type Authorized, authorize, ownLoopbackPermit } from './permit.js';
export { evaluateGuard, type GuardCheck, type GuardContext, type GuardDecision, type GuardRule } from './evaluate.js';
export { describeDecision } from './describe.js';
export { isLoopbackUrl } from './loopback.js';
export { WINDOW_MS, measureTraffic, worstCaseFactor, type Stretch, type TrafficMeasures } from './traffic.js';
export { parseStartAt, type StartAt } from './start-at.js';
export { type AdvanceNotice, draftNotice, formatNotice } from './advance-notice.js';
export { type Predicted429, describePredicted429s, predict429s } from './predicted-429.js';
