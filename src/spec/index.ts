export { MAX_OBFUSCATION_CHARS, ERROR_CODE_PATTERN, IDENTIFICATION_LIMITS, LATENCY_BANDS, LIMIT_429_CODES, SPEC_WORDING, TRAFFIC_RULES, ENVELOPE_MARGIN, bucketCapacityTokens, envelopeMarginTokens, latencyBandFor, type EnvelopeLimits, type LatencyBand } from './limits.js';
export { API_PATHS, GRANT_TYPE, type ApiEndpoint } from './paths.js';
export { TOKENS_PER_CHARACTER, estimateModelTokens, maxCharactersFor } from './tokens.js';
export { DUE_HEADER, MODEL_LAG_METRIC, MODEL_TIME_METRIC, formatModelTime, parseModelLag, parseModelTime } from './server-timing.js';
export { PROFILE_NAMES, type ProfileName, isProfileName } from './profiles.js';
