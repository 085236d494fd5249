export { ResponseParser } from './parser.js';
export { ConnectionPool, type WallDeadline } from './pool.js';
export { type Http1Response, MAX_ANSWER_BYTES } from './response.js';
