export { ResponseParser } from './parser.js';
export { ConnectionPool } from './pool.js';
export { type Http1Response, MAX_ANSWER_BYTES } from './response.js';
