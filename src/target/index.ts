export { againstEmbeddedMock, againstMockNote, writtenTimeScale } from './against-mock.js';
export { resolveCallTarget, targetScenario } from './call-target.js';
export { runCheck } from './check.js';
export { announceCheck, formatCheck } from './check-table.js';
export { proxyRoute } from './proxy-route.js';
export { type ResolvedTarget, resolveTarget } from './resolve.js';
