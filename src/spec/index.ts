export { IDENTIFICATION_LIMITS, LATENCY_BANDS, SPEC_WORDING, TRAFFIC_RULES, latencyBandFor, type EnvelopeLimits, type LatencyBand } from './limits.js';
export { API_PATHS, GRANT_TYPE, type ApiEndpoint } from './paths.js';
export { TOKENS_PER_CHARACTER, estimateModelTokens, maxCharactersFor } from './tokens.js';
export { MODEL_TIME_METRIC, formatModelTime, parseModelTime } from './server-timing.js';
