export type { Origin } from './connection.js';
export { ResponseParser } from './parser.js';
export { ConnectionPool, type PoolOptions } from './pool.js';
export { CancelledError, DeadlineError } from './request-errors.js';
export {
  AnswerTooLargeError,
  DEFAULT_MAX_HEAD_BYTES,
  type Http1Response,
  HttpParseError,
  MAX_ANSWER_BYTES,
  MAX_OBFUSCATION_ANSWER_BYTES,
  PrematureCloseError,
} from './response.js';
