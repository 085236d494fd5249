export { ConnectionPool, CancelledError, DeadlineError, type PoolOptions } from './pool.js';
export { ResponseParser } from './parser.js';
export { AnswerTooLargeError, type Http1Response, HttpParseError, PrematureCloseError, DEFAULT_MAX_HEAD_BYTES, MAX_ANSWER_BYTES, MAX_OBFUSCATION_ANSWER_BYTES } from './response.js';
export type { Origin } from './connection.js';
