export { draftNotice, formatNotice } from './advance-notice.js';
export type { GuardDecision } from './decision.js';
export { describeDecision } from './describe.js';
export { evaluateGuard } from './evaluate.js';
export { isLoopbackUrl } from './loopback.js';
export { authorize, ownLoopbackPermit } from './permit.js';
export { describePredicted429s, predict429s } from './predicted-429.js';
export { parseStartAt } from './start-at.js';
