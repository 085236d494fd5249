export { LOG_PATH, MOCK_DEFAULTS, STATS_PATH, startMockServer, type LimitOverrides, type MockServer, type MockServerOptions, type MockStats } from './server.js';
export { MOCK_TOKEN_PREFIX } from './auth.js';
export { PROFILES, PROFILE_NAMES, isProfileName, type MockProfile, type ProfileName, type FaultRates } from './profiles.js';
export { simulateIdentification, simulateSchedule, quantile, latenciesOf, type FleetSample, type RateSegment, type SimulationResult } from './simulate.js';
export { startMockThread, type MockThread, type MockThreadOptions } from './thread.js';
export { releaseTimeMs, stallTruthMs, type StallWindows } from './gateway.js';
