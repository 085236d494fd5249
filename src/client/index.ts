export { type ApiCallFn, createApiCall, createIdentify, type IdentifyFn, type RequestResult } from './api.js';
export { attemptWallDeadlineMs } from './attempt-deadline.js';
export {
  type ChainCalls,
  ChainError,
  type FoundEntity,
  type ObfuscateAnswer,
  type Replacement,
} from './chain-answers.js';
export { classifyStatus, TOO_LARGE_CODE } from './classify.js';
export {
  call as apiCall,
  ApiCallError,
  type ApiSession,
  type CallRecord,
  fetchToken,
  httpChainCalls,
} from './endpoint-calls.js';
export { MAX_ATTEMPTS, MAX_RETRY_WAIT_S } from './endpoint-calls.js';
export { ResponseParser } from './http1/parser.js';
export { ConnectionPool, type PoolExtras } from './http1/pool.js';
export { type HttpProxy, proxyFor } from './http1/proxy-env.js';
export { MAX_ANSWER_BYTES, MAX_OBFUSCATION_ANSWER_BYTES } from './http1/response.js';
export { ProxyTunnelError } from './http1/tunnel.js';
export { parseJsonObject, textBodyBytes } from './json.js';
export { sleepUntilOrStop } from './sleep.js';
export { smallRequest } from './small-request.js';
export { tlsFailure } from './tls-failure.js';
export { trustOptions } from './tls-trust.js';
export { TokenProvider } from './token.js';
export { HEADER_SAFE, tokenRequestBody } from './token-request.js';
