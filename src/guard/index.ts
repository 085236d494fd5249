export { type AdvanceNotice, draftNotice, formatNotice } from './advance-notice.js';
export type { GuardCheck, GuardContext, GuardDecision, GuardRule } from './decision.js';
export { describeDecision } from './describe.js';
export { evaluateGuard } from './evaluate.js';
export { isLoopbackUrl } from './loopback.js';
export { authorize, type Authorized, ownLoopbackPermit } from './permit.js';
export { describePredicted429s, predict429s, type Predicted429 } from './predicted-429.js';
export { parseStartAt, type StartAt } from './start-at.js';
export { measureTraffic, type Stretch, type TrafficMeasures, WINDOW_MS, worstCaseFactor } from './traffic.js';
