export {
  bucketCapacityTokens,
  type EnvelopeLimits,
  envelopeMarginTokens,
  ERROR_CODE_PATTERN,
  IDENTIFICATION_LIMITS,
  LATENCY_BANDS,
  type LatencyBand,
  latencyBandFor,
  LIMIT_429_CODES,
  MAX_OBFUSCATION_CHARS,
  SPEC_WORDING,
  TRAFFIC_RULES,
} from './limits.js';
export { API_PATHS, type ApiEndpoint, GRANT_TYPE } from './paths.js';
export { PROFILE_NAMES, type ProfileName } from './profiles.js';
export { DUE_HEADER, formatModelTime, parseModelLag, parseModelTime } from './server-timing.js';
export { estimateModelTokens, maxCharactersFor } from './tokens.js';
