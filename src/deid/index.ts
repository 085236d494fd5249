export { deidSummaryLine, replacementTable } from './format.js';
export { ApiCallError, type ApiSession, call as apiCall, type ApiTarget, type CallRecord, createSession, fetchToken, httpChainCalls } from './api.js';
export {
  type ChainCalls,
  ChainError,
  type ChainOptions,
  DEFAULT_CHAIN_OPTIONS,
  type DeidResult,
  type FoundEntity,
  type IdentifyAnswer,
  type ObfuscateAnswer,
  type Replacement,
  deidentify,
  documentPieces,
  identifyBudget,
  mergeEntities,
} from './chain.js';
