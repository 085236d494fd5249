/**
 * An incremental HTTP/1.1 response parser for one connection, one response at a time (we never
 * pipeline): the status line, the headers, then a body framed by Content-Length, by chunked
 * transfer coding, or by the connection's close. Bytes may arrive split anywhere. It keeps every
 * header (lower-case names), so the caller reads Retry-After, Server-Timing or anything else.
 * What is not HTTP/1.x, or a head larger than the limit, is an {@link HttpParseError}, never a hang.
 */

import { HeadBytes } from './head-bytes.js';
import { checkPartialHead, contentLength, hasOption, HEAD_START, readHeaderLine, readStatus } from './head-syntax.js';
import {
  AnswerTooLargeError,
  DEFAULT_MAX_HEAD_BYTES,
  type Http1Response,
  HttpParseError,
  MAX_ANSWER_BYTES,
  PrematureCloseError,
} from './response.js';

/**
 * A chunk-size line (RFC 9112 §7.1): the size in hex, then extensions `;name[=value]`, a value a token or a quoted
 * string, with the whitespace (BWS) the RFC allows around ";" and "=". Nothing else: no control character, no bare CR.
 */
const CHUNK_SIZE_LINE = (() => {
  const token = "[-!#$%&'*+.^_`|~0-9A-Za-z]+";
  const quoted = '"(?:[\\t !#-\\[\\]-~\\x80-\\xff]|\\\\[\\t -~\\x80-\\xff])*"';
  return new RegExp(`^0*([0-9a-fA-F]{1,8})(?:[ \\t]*;[ \\t]*${token}(?:[ \\t]*=[ \\t]*(?:${token}|${quoted}))?)*$`);
})();

/** The longest chunk-size or trailer line accepted, bytes. */
const MAX_LINE_BYTES = 8 * 1024;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
/** Before a head is read: no headers (never handed out; each answer gets the object its head made). */
const NO_HEADERS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);
/** Where the line that starts at `from` ends (its CRLF, or the end of the text). */
function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\r\n', from);
  return end < 0 ? text.length : end;
}

export class ResponseParser {
  private state = State.Head;
  /** The head so far, when it came in several chunks. */
  private readonly head = new HeadBytes();
  /** Where the head's line still arriving starts: the lines before it are checked already (checkPartialHead). */
  private headChecked = HEAD_START;
  private status = 0;
  private headers: Record<string, string> = NO_HEADERS;
  private close = false;
  private keepAliveMs: number | undefined;
  private remaining = 0;
  private parts: Buffer[] = [];
  private line = '';
  /** A response has begun (some byte of it was read). */
  private started = false;
  /** Body bytes (and trailer bytes) of this response so far, held against maxBodyBytes. */
  private bodyBytes = 0;

  constructor(
    private readonly maxHeadBytes = DEFAULT_MAX_HEAD_BYTES,
    private readonly maxBodyBytes = MAX_ANSWER_BYTES,
  ) {}

  /** Counts `n` more body bytes; throws once the body would pass the cap (before they are kept). */
  private grow(n: number): void {
    this.bodyBytes += n;
    if (this.bodyBytes > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
  }

  /**
   * Feeds the next bytes; returns the response once it is whole (bytes after it mark it `close`). Throws
   * HttpParseError. The bytes may be reused by the caller as soon as this returns: what is kept is copied.
   */
  push(chunk: Buffer): Http1Response | undefined {
    let at = 0;
    if (chunk.length > 0) this.started = true;
    while (at < chunk.length) {
      at = this.read(chunk, at);
      // A response is whole when we are back at Head with a status read (1xx heads are skipped).
      if (this.state === State.Head && this.status !== 0) return this.finish(at < chunk.length);
    }
    return undefined;
  }

  /** Reads what the current state expects from `chunk` at `at`; where it stopped. */
  private read(chunk: Buffer, at: number): number {
    switch (this.state) {
      case State.Head:
        return this.readHeadBytes(chunk, at);
      case State.Length:
        return this.readLengthBody(chunk, at);
      case State.ChunkSize:
      case State.Trailers:
        return this.readLine(chunk, at);
      case State.ChunkData:
        return this.readChunkData(chunk, at);
      case State.ChunkEnd:
        return this.readChunkEnd(chunk, at);
      case State.UntilClose:
        this.grow(chunk.length - at);
        this.parts.push(Buffer.from(chunk.subarray(at)));
        return chunk.length;
    }
  }

  /** The status line and headers, up to their blank line (kept across chunks until it comes). */
  private readHeadBytes(chunk: Buffer, at: number): number {
    const before = this.head.length;
    // The usual head comes whole in one chunk: read it there, and keep a copy only of a head still arriving.
    const buf = before === 0 ? chunk.subarray(at) : this.head.append(chunk.subarray(at));
    const end = buf.indexOf(CRLFCRLF, Math.max(0, before - 3));
    if (end < 0) {
      if (buf.length > this.maxHeadBytes)
        throw new HttpParseError(
          'HPE_HEADER_OVERFLOW',
          `the response's status line and headers exceed ${this.maxHeadBytes} bytes`,
        );
      this.headChecked = checkPartialHead(buf, this.headChecked);
      if (before === 0) this.head.append(buf);
      return chunk.length;
    }
    if (end > this.maxHeadBytes)
      throw new HttpParseError(
        'HPE_HEADER_OVERFLOW',
        `the response's status line and headers exceed ${this.maxHeadBytes} bytes`,
      );
    const text = buf.toString('latin1', 0, end);
    this.head.clear();
    this.headChecked = HEAD_START;
    this.readHead(text);
    return at + end + 4 - before;
  }

  /** A body framed by Content-Length. */
  private readLengthBody(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.grow(n);
    // Copied straight from the chunk (no view of it made first): this runs once per answer.
    const part = Buffer.allocUnsafe(n);
    chunk.copy(part, 0, at, at + n);
    this.parts.push(part);
    this.remaining -= n;
    if (this.remaining === 0) this.state = State.Head; // whole: see push
    return at + n;
  }

  /** A chunk-size line or a trailer line, kept across chunks until its LF comes. */
  private readLine(chunk: Buffer, at: number): number {
    const nl = chunk.indexOf(10, at);
    const piece = chunk.toString('latin1', at, nl < 0 ? chunk.length : nl + 1);
    const next = nl < 0 ? chunk.length : nl + 1;
    // Trailer lines are not kept, but a stream of them is a body without end.
    if (this.state === State.Trailers) this.grow(piece.length);
    this.line += piece;
    if (this.line.length > MAX_LINE_BYTES)
      throw new HttpParseError('HPE_INVALID_CHUNK_SIZE', 'a chunk-size or trailer line is too long');
    if (nl < 0) return next;
    const line = this.line.endsWith('\r\n') ? this.line.slice(0, -2) : this.line.slice(0, -1);
    this.line = '';
    if (this.state === State.Trailers) {
      // Trailers are not kept, but an ill-formed one is refused, as a header line is.
      if (line !== '') readHeaderLine(line, 0, line.length);
      else this.state = State.Head; // whole
      return next;
    }
    this.readChunkSize(line);
    return next;
  }

  /** A chunk-size line: the size of the chunk that follows (0: the trailers). */
  private readChunkSize(line: string): void {
    // Leading zeros are no part of the size's magnitude; an extension is checked, then ignored.
    const size = CHUNK_SIZE_LINE.exec(line);
    if (size === null)
      throw new HttpParseError(
        'HPE_INVALID_CHUNK_SIZE',
        'a chunk-size line is not a hexadecimal size and chunk extensions (RFC 9112 §7.1)',
      );
    this.remaining = Number.parseInt(size[1]!, 16);
    // A chunk announced past the cap is refused before any of it is read.
    if (this.bodyBytes + this.remaining > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
  }

  /** A chunk's data. */
  private readChunkData(chunk: Buffer, at: number): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.grow(n);
    this.parts.push(Buffer.from(chunk.subarray(at, at + n)));
    this.remaining -= n;
    if (this.remaining === 0) {
      this.state = State.ChunkEnd;
      this.remaining = 2;
    }
    return at + n;
  }

  /** The CRLF after a chunk's data (a bare LF is tolerated, as llhttp's lenient mode does). */
  private readChunkEnd(chunk: Buffer, at: number): number {
    const byte = chunk[at]!;
    if (this.remaining === 2 && byte === 13) this.remaining = 1;
    else if (byte === 10) this.state = State.ChunkSize;
    else throw new HttpParseError('HPE_INVALID_CHUNK_SIZE', 'a chunk is not followed by CRLF');
    return at + 1;
  }

  /**
   * The connection ended. Returns the response a close ends (a body without length), undefined when
   * no response had begun, and throws PrematureCloseError when one was cut short.
   */
  end(): Http1Response | undefined {
    if (this.state === State.UntilClose) return this.finish(true);
    if (!this.started) return undefined;
    throw new PrematureCloseError();
  }

  private readHead(text: string): void {
    // By hand, not split and regular expressions: this runs once per answer, and a split head cost about
    // 2 KB of garbage per request. Lines end in CRLF; the status line is "HTTP/1.0 " or "HTTP/1.1 ", three
    // digits, then a space or its end; a header line is a token, a colon and a value (head-syntax.ts).
    const statusEnd = lineEnd(text, 0);
    const status = readStatus(text, statusEnd);
    const minor = text.charCodeAt(7);
    // No prototype: a header named `constructor` or `__proto__` is a header, not a member of Object.prototype.
    const headers: Record<string, string> = Object.create(null) as Record<string, string>;
    // The head ends before its blank line, so every line after the status line is a header line.
    for (let at = statusEnd + 2; statusEnd < text.length && at <= text.length;) {
      const end = lineEnd(text, at);
      readHeaderLine(text, at, end, headers);
      at = end + 2;
    }
    const length = contentLength(headers);
    // 1xx: an interim answer; the real one follows. Their heads count against the answer's cap: a stream of them is an
    // answer without end.
    if (status < 200) return this.grow(text.length + 4);
    this.status = status;
    this.headers = headers;
    const connection = headers['connection'] ?? '';
    this.close = hasOption(connection, 'close') || (minor === 48 && !hasOption(connection, 'keep-alive'));
    // Headers most answers lack are only searched when present (this runs once per answer).
    const keepAlive = headers['keep-alive'];
    const timeout = keepAlive === undefined ? null : /timeout=(\d+)/i.exec(keepAlive);
    this.keepAliveMs = timeout === null ? undefined : Number(timeout[1]) * 1000;
    if (status === 204 || status === 304) return; // no body: whole already
    const coding = headers['transfer-encoding'];
    if (coding !== undefined && /(?:^|,)[ \t]*chunked$/i.test(coding)) {
      this.state = State.ChunkSize;
      return;
    }
    if (length !== undefined) {
      this.remaining = length;
      // Announced past the cap: refused at once, nothing of it read or waited for.
      if (this.remaining > this.maxBodyBytes) throw new AnswerTooLargeError(this.maxBodyBytes);
      if (this.remaining > 0) this.state = State.Length;
      return;
    }
    this.close = true;
    this.state = State.UntilClose;
  }

  private finish(close: boolean): Http1Response {
    const parts = this.parts;
    const body = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const response: {
      status: number;
      headers: Record<string, string>;
      body: Buffer;
      close: boolean;
      keepAliveMs?: number;
    } = { status: this.status, headers: this.headers, body, close: this.close || close };
    if (this.keepAliveMs !== undefined) response.keepAliveMs = this.keepAliveMs;
    this.state = State.Head;
    this.status = 0;
    // Nothing made per answer to be thrown away: the next head brings its own headers, the body is out of the array.
    this.headers = NO_HEADERS;
    this.close = false;
    this.keepAliveMs = undefined;
    parts.length = 0;
    this.started = false;
    this.bodyBytes = 0;
    return response;
  }
}
