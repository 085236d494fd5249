/** An HTTP/1.1 response as the parser gives it, the ways reading one fails, and the limits it is read under. */

/** One complete response. */
export interface Http1Response {
  readonly status: number;
  /** Header values by lower-case name; a repeated header's values joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /**
   * The connection cannot carry another request: Connection: close, HTTP/1.0 without keep-alive, a body ended by the
   * close, or stray bytes after it.
   */
  readonly close: boolean;
  /** How long the server keeps an idle connection (Keep-Alive: timeout=N), wall ms, when it said. */
  readonly keepAliveMs?: number;
}

/** A response that is not well-formed HTTP/1.x, or too large. `code` names what (as llhttp's HPE_* codes do). */
export class HttpParseError extends Error {
  constructor(
    readonly code:
      | 'HPE_HEADER_OVERFLOW'
      | 'HPE_INVALID_STATUS'
      | 'HPE_INVALID_HEADER'
      | 'HPE_INVALID_CONTENT_LENGTH'
      | 'HPE_INVALID_CHUNK_SIZE',
    message: string,
  ) {
    super(message);
    this.name = 'HttpParseError';
  }
}

/** An answer whose body is larger than the cap (announced, or read so far): it is not read on. */
export class AnswerTooLargeError extends Error {
  readonly code = 'LOADPROOF_ANSWER_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes (too_large); it was not read past that`);
    this.name = 'AnswerTooLargeError';
  }
}

/** The connection closed before the response was whole: as a reset, to the caller. */
export class PrematureCloseError extends Error {
  readonly code = 'ECONNRESET';
  constructor() {
    super('the server closed the connection before the response was complete');
    this.name = 'PrematureCloseError';
  }
}

/** The largest status line + headers accepted, bytes (Node's own default). */
export const DEFAULT_MAX_HEAD_BYTES = 16 * 1024;
/**
 * The largest answer body read, bytes (after chunked decoding; trailers count too). The spec caps an
 * identification answer at 300 output tokens, a few KiB of JSON; 256 KiB is far above any answer the API
 * gives, yet 128 requests in flight hold at most 32 MiB of answers. Past it the answer is not read on.
 */
export const MAX_ANSWER_BYTES = 256 * 1024;
/**
 * The largest obfuscation answer read, bytes: sized from the largest one the spec allows, not from the
 * others'. Its text is at most 100,000 UTF-16 units, 6 bytes each at worst as JSON (a \u escape; CJK is 3),
 * 600 KB; tags grow it by at most 10,000 (the most entities) × ~66 bytes, 660 KB; and the replacements list
 * is 10,000 records of at most ~250 bytes, 2.5 MB: 3.8 MB, rounded up to 4 MiB. Used only for obfuscation.
 */
export const MAX_OBFUSCATION_ANSWER_BYTES = 4 * 1024 * 1024;
